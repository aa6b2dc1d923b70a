package io.kcdelta.schema;

import org.apache.kafka.connect.errors.DataException;

/** A record's schema cannot be written to the table; the message says what to change. */
public class SchemaMappingException extends DataException {
  public SchemaMappingException(String message) {
    super(message);
  }
}
