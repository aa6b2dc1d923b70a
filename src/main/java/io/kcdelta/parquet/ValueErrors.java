package io.kcdelta.parquet;

import org.apache.kafka.connect.errors.DataException;

/** Messages that name the column, so a rejected record can be traced to its field. */
final class ValueErrors {
  private ValueErrors() {}

  static DataException wrongClass(String column, String expected, Object value) {
    return new DataException(
        "Column '"
            + column
            + "': expected a "
            + expected
            + " value, got a "
            + value.getClass().getName());
  }

  static DataException requiredNull(String column) {
    return new DataException(
        "Column '"
            + column
            + "' is required (not optional in the schema) but the "
            + "record holds null");
  }
}
