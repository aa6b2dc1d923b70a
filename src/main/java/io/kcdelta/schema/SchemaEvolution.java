package io.kcdelta.schema;

import io.delta.standalone.types.StructType;

/** STUB: decides whether records of an incoming schema may be appended to a table, and the table's new schema. */
public final class SchemaEvolution {

  public enum Mode { NONE, ADD_COLUMNS }

  private SchemaEvolution() {
  }

  /**
   * @return {@code table} itself (same instance) when no change is needed, else the evolved schema
   * @throws SchemaMappingException when the incoming schema cannot be appended in this mode
   */
  public static StructType evolve(StructType table, StructType incoming, Mode mode) {
    throw new UnsupportedOperationException("stub");
  }
}
