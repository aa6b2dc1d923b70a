package io.kcdelta.testutil;

import io.delta.standalone.types.DataType;
import io.kcdelta.schema.SchemaJson;
import io.kcdelta.schema.StructType;

/** Our schema model as Delta Standalone's, for tests that set tables up through Standalone. */
public final class StandaloneTypes {
  private StandaloneTypes() {}

  public static io.delta.standalone.types.StructType of(StructType schema) {
    return (io.delta.standalone.types.StructType) DataType.fromJson(SchemaJson.write(schema));
  }

  public static StructType ours(io.delta.standalone.types.StructType schema) {
    return SchemaJson.parse(schema.toJson());
  }
}
