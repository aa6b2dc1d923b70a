package io.kcdelta.schema;

/**
 * A Delta column type, as the Delta protocol's schema serialization names it. Our own model, so
 * that record mapping, schema evolution, Parquet and stats code need neither Delta Kernel nor any
 * other Delta library: only the Delta layer reads and writes the log.
 */
public sealed interface DeltaType
    permits PrimitiveType, DecimalType, ArrayType, MapType, StructType, UnknownType {

  /** The type as Delta's messages and Spark's DDL spell it: {@code long}, {@code array<string>}. */
  String simpleString();
}
