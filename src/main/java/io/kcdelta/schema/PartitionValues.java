package io.kcdelta.schema;

import org.apache.kafka.connect.data.Schema;

/** STUB: Delta partition values (the strings of AddFile.partitionValues) from Connect values. */
public final class PartitionValues {
  private PartitionValues() {
  }

  /** @throws SchemaMappingException if the field's type cannot be a Delta partition column */
  public static void checkPartitionable(String column, Schema fieldSchema) {
    throw new UnsupportedOperationException("stub");
  }

  /** Delta's serialized form of the value, or null for a null value. */
  public static String format(Object value, Schema fieldSchema) {
    throw new UnsupportedOperationException("stub");
  }
}
