package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaJsonTest {

  /** As Spark writes a column-mapped table's schema: ids, physical names, a type change. */
  private static final String SPARK_SCHEMA =
      "{\"type\":\"struct\",\"fields\":["
          + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":"
          + "{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-5f\","
          + "\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}]}},"
          + "{\"name\":\"at\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"v\",\"type\":\"variant\",\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"d\",\"type\":\"decimal(12,3)\",\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":["
          + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\","
          + "\"containsNull\":false},\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"string\","
          + "\"valueType\":\"double\",\"valueContainsNull\":true},\"nullable\":true,"
          + "\"metadata\":{}}]},\"nullable\":true,\"metadata\":{\"comment\":\"nested\"}}]}";

  @Test
  void aSchemaReadFromATableIsWrittenBackAsItWas() {
    StructType schema = SchemaJson.parse(SPARK_SCHEMA);
    assertEquals(JsonParser.parse(SPARK_SCHEMA), JsonParser.parse(SchemaJson.write(schema)));
    assertEquals(schema, SchemaJson.parse(SchemaJson.write(schema)));
  }

  @Test
  void typesMetadataAndUnknownTypesAreRead() {
    StructType schema = SchemaJson.parse(SPARK_SCHEMA);
    StructField id = schema.field("id");
    assertEquals(PrimitiveType.LONG, id.type());
    assertFalse(id.nullable());
    assertEquals(1L, ((Number) id.metadata().get("delta.columnMapping.id")).longValue());
    assertEquals(
        List.of(Map.of("fromType", "integer", "toType", "long")),
        id.metadata().get("delta.typeChanges"));
    assertEquals(PrimitiveType.TIMESTAMP_NTZ, schema.field("at").type());
    assertEquals(
        "variant", assertInstanceOf(UnknownType.class, schema.field("v").type()).simpleString());
    assertEquals(new DecimalType(12, 3), schema.field("d").type());
    StructType nested = assertInstanceOf(StructType.class, schema.field("s").type());
    assertEquals(new ArrayType(PrimitiveType.STRING, false), nested.field("tags").type());
    assertEquals(
        new MapType(PrimitiveType.STRING, PrimitiveType.DOUBLE, true), nested.field("m").type());
  }

  @Test
  void notAStructIsRefused() {
    assertThrows(SchemaMappingException.class, () -> SchemaJson.parse("\"long\""));
    assertThrows(SchemaMappingException.class, () -> SchemaJson.parse("{not json"));
  }
}
