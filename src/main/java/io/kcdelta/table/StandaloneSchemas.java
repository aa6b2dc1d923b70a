package io.kcdelta.table;

import io.delta.standalone.types.DataType;
import io.kcdelta.schema.SchemaJson;
import io.kcdelta.schema.StructType;

/** Our schema model to and from Delta Standalone's, by the protocol's JSON form of both. */
final class StandaloneSchemas {
  private StandaloneSchemas() {}

  static StructType of(io.delta.standalone.types.StructType schema) {
    return schema == null ? null : SchemaJson.parse(schema.toJson());
  }

  static io.delta.standalone.types.StructType toStandalone(StructType schema) {
    return (io.delta.standalone.types.StructType) DataType.fromJson(SchemaJson.write(schema));
  }
}
