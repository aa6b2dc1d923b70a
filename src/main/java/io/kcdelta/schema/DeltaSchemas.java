package io.kcdelta.schema;

import io.delta.standalone.types.StructType;
import org.apache.kafka.connect.data.Schema;
import org.apache.parquet.schema.MessageType;

/** STUB: Connect schema to Delta and Parquet schemas (DESIGN's type mapping). */
public final class DeltaSchemas {
  private DeltaSchemas() {
  }

  /** @throws SchemaMappingException if the schema is not a STRUCT or holds a type with no mapping */
  public static StructType toDelta(Schema valueSchema) {
    throw new UnsupportedOperationException("stub");
  }

  /** The Parquet schema of a data file, without the excluded top-level fields. */
  public static MessageType toParquet(Schema valueSchema, java.util.Set<String> excludedFields) {
    throw new UnsupportedOperationException("stub");
  }
}
