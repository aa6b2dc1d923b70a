package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

class DeltaSchemasTest {

  static Schema decimal(int precision, int scale) {
    return Decimal.builder(scale)
        .parameter(ConnectTypes.PRECISION_PARAM, Integer.toString(precision))
        .build();
  }

  static Schema allTypes() {
    Schema nested =
        SchemaBuilder.struct()
            .field("x", Schema.INT32_SCHEMA)
            .field("y", Schema.OPTIONAL_STRING_SCHEMA)
            .optional()
            .build();
    return SchemaBuilder.struct()
        .field("i8", Schema.INT8_SCHEMA)
        .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
        .field("i32", Schema.INT32_SCHEMA)
        .field("i64", Schema.INT64_SCHEMA)
        .field("f32", Schema.FLOAT32_SCHEMA)
        .field("f64", Schema.FLOAT64_SCHEMA)
        .field("bool", Schema.BOOLEAN_SCHEMA)
        .field("str", Schema.OPTIONAL_STRING_SCHEMA)
        .field("bin", Schema.BYTES_SCHEMA)
        .field("dec", decimal(10, 2))
        .field("dec_default", Decimal.schema(3))
        .field("date", Date.SCHEMA)
        .field("ts", Timestamp.builder().optional().build())
        .field("time", Time.SCHEMA)
        .field("nested", nested)
        .field("arr", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build())
        .field("arr_req", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .field(
            "map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
        .build();
  }

  @Test
  void mapsEveryTypeToDelta() {
    StructType expected =
        new StructType(
            new StructField[] {
              new StructField("i8", PrimitiveType.BYTE, false),
              new StructField("i16", PrimitiveType.SHORT, true),
              new StructField("i32", PrimitiveType.INTEGER, false),
              new StructField("i64", PrimitiveType.LONG, false),
              new StructField("f32", PrimitiveType.FLOAT, false),
              new StructField("f64", PrimitiveType.DOUBLE, false),
              new StructField("bool", PrimitiveType.BOOLEAN, false),
              new StructField("str", PrimitiveType.STRING, true),
              new StructField("bin", PrimitiveType.BINARY, false),
              new StructField("dec", new DecimalType(10, 2), false),
              new StructField("dec_default", new DecimalType(38, 3), false),
              new StructField("date", PrimitiveType.DATE, false),
              new StructField("ts", PrimitiveType.TIMESTAMP, true),
              new StructField("time", PrimitiveType.INTEGER, false),
              new StructField(
                  "nested",
                  new StructType(
                      new StructField[] {
                        new StructField("x", PrimitiveType.INTEGER, false),
                        new StructField("y", PrimitiveType.STRING, true)
                      }),
                  true),
              new StructField("arr", new ArrayType(PrimitiveType.LONG, true), false),
              new StructField("arr_req", new ArrayType(PrimitiveType.STRING, false), true),
              new StructField(
                  "map", new MapType(PrimitiveType.STRING, PrimitiveType.DOUBLE, true), false),
            });
    StructType actual = DeltaSchemas.toDelta(allTypes());
    assertEquals(expected, actual, actual.simpleString());
    assertEquals(expected.fieldNames(), actual.fieldNames());
  }

  @Test
  void mapsEveryTypeToParquet() {
    MessageType expected =
        MessageTypeParser.parseMessageType(
            "message spark_schema {\n"
                + "  required int32 i8 (INTEGER(8,true));\n"
                + "  optional int32 i16 (INTEGER(16,true));\n"
                + "  required int32 i32;\n"
                + "  required int64 i64;\n"
                + "  required float f32;\n"
                + "  required double f64;\n"
                + "  required boolean bool;\n"
                + "  optional binary str (STRING);\n"
                + "  required binary bin;\n"
                + "  required int64 dec (DECIMAL(10,2));\n"
                + "  required fixed_len_byte_array(16) dec_default (DECIMAL(38,3));\n"
                + "  required int32 date (DATE);\n"
                + "  optional int64 ts (TIMESTAMP(MICROS,true));\n"
                + "  required int32 time;\n"
                + "  optional group nested {\n"
                + "    required int32 x;\n"
                + "    optional binary y (STRING);\n"
                + "  }\n"
                + "  required group arr (LIST) {\n"
                + "    repeated group list {\n"
                + "      optional int64 element;\n"
                + "    }\n"
                + "  }\n"
                + "  optional group arr_req (LIST) {\n"
                + "    repeated group list {\n"
                + "      required binary element (STRING);\n"
                + "    }\n"
                + "  }\n"
                + "  required group map (MAP) {\n"
                + "    repeated group key_value {\n"
                + "      required binary key (STRING);\n"
                + "      optional double value;\n"
                + "    }\n"
                + "  }\n"
                + "}\n");
    MessageType actual = DeltaSchemas.toParquet(allTypes(), Set.of());
    assertEquals(expected, actual, actual.toString());
  }

  @Test
  void decimalPhysicalTypeFollowsPrecision() {
    assertEquals("required int32 d (DECIMAL(9,0))", field(decimal(9, 0)));
    assertEquals("required int64 d (DECIMAL(10,5))", field(decimal(10, 5)));
    assertEquals("required int64 d (DECIMAL(18,2))", field(decimal(18, 2)));
    assertEquals("required fixed_len_byte_array(9) d (DECIMAL(19,2))", field(decimal(19, 2)));
    assertEquals("required fixed_len_byte_array(9) d (DECIMAL(21,0))", field(decimal(21, 0)));
    assertEquals("required fixed_len_byte_array(10) d (DECIMAL(22,0))", field(decimal(22, 0)));
    assertEquals("required fixed_len_byte_array(16) d (DECIMAL(38,10))", field(decimal(38, 10)));
    assertEquals("required int32 d (DECIMAL(1,1))", field(decimal(1, 1)));
  }

  @Test
  void minimalDecimalLengthsHoldTheLargestValue() {
    for (int p = 1; p <= 38; p++) {
      int bytes = ParquetSchemas.decimalBytes(p);
      java.math.BigInteger largest =
          java.math.BigInteger.TEN.pow(p).subtract(java.math.BigInteger.ONE);
      assertTrue(largest.bitLength() + 1 <= bytes * 8, "p=" + p);
      assertTrue(largest.bitLength() + 1 > (bytes - 1) * 8, "p=" + p + " not minimal");
    }
  }

  private static String field(Schema s) {
    Schema record = SchemaBuilder.struct().field("d", s).build();
    return DeltaSchemas.toParquet(record, Set.of()).getType("d").toString();
  }

  @Test
  void rejectsDecimalsDeltaCannotHold() {
    Schema tooWide = SchemaBuilder.struct().field("amount", decimal(39, 2)).build();
    SchemaMappingException e =
        assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toDelta(tooWide));
    assertTrue(e.getMessage().contains("amount") && e.getMessage().contains("39"), e.getMessage());
    Schema negative = SchemaBuilder.struct().field("n", Decimal.schema(-2)).build();
    assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toParquet(negative, Set.of()));
    Schema scaleAbovePrecision = SchemaBuilder.struct().field("n", decimal(3, 5)).build();
    assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toDelta(scaleAbovePrecision));
  }

  @Test
  void excludedTopLevelFieldsAreLeftOutOfParquetOnly() {
    Schema s =
        SchemaBuilder.struct()
            .field("day", Schema.STRING_SCHEMA)
            .field("v", Schema.INT64_SCHEMA)
            .field("inner", SchemaBuilder.struct().field("day", Schema.STRING_SCHEMA).build())
            .build();
    MessageType parquet = DeltaSchemas.toParquet(s, Set.of("day"));
    assertEquals(2, parquet.getFieldCount());
    assertFalse(parquet.containsField("day"));
    assertTrue(
        parquet.getType("inner").asGroupType().containsField("day"),
        "nested fields are not excluded");
    assertEquals(3, DeltaSchemas.toDelta(s).length());
  }

  @Test
  void onlyPartitionColumnsLeftIsAnError() {
    Schema s = SchemaBuilder.struct().field("day", Schema.STRING_SCHEMA).build();
    assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toParquet(s, Set.of("day")));
  }

  @Test
  void rejectsNonStructAndMissingSchemas() {
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> DeltaSchemas.toDelta(Schema.STRING_SCHEMA));
    assertTrue(
        e.getMessage().contains("STRING") && e.getMessage().contains("STRUCT"), e.getMessage());
    assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toDelta(null));
    assertThrows(
        SchemaMappingException.class, () -> DeltaSchemas.toParquet(Schema.INT32_SCHEMA, Set.of()));
  }

  @Test
  void rejectsEmptyStructs() {
    Schema s = SchemaBuilder.struct().field("e", SchemaBuilder.struct().optional().build()).build();
    SchemaMappingException e =
        assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toDelta(s));
    assertTrue(e.getMessage().contains("'e'"), e.getMessage());
  }

  @Test
  void nestedContainersMapRecursively() {
    Schema inner = SchemaBuilder.struct().field("k", Schema.OPTIONAL_BOOLEAN_SCHEMA).build();
    Schema s =
        SchemaBuilder.struct()
            .field(
                "m",
                SchemaBuilder.map(Schema.INT32_SCHEMA, SchemaBuilder.array(inner).build())
                    .optional()
                    .build())
            .build();
    StructType delta = DeltaSchemas.toDelta(s);
    MapType m = (MapType) delta.field("m").type();
    assertTrue(delta.field("m").nullable());
    assertEquals(PrimitiveType.INTEGER, m.keyType());
    assertFalse(m.valueContainsNull());
    ArrayType a = (ArrayType) m.valueType();
    assertFalse(a.containsNull());
    assertEquals(
        new StructType(new StructField[] {new StructField("k", PrimitiveType.BOOLEAN, true)}),
        a.elementType());
    assertEquals(
        MessageTypeParser.parseMessageType(
            "message spark_schema {\n"
                + "  optional group m (MAP) {\n"
                + "    repeated group key_value {\n"
                + "      required int32 key;\n"
                + "      required group value (LIST) {\n"
                + "        repeated group list {\n"
                + "          required group element {\n"
                + "            optional boolean k;\n"
                + "          }\n"
                + "        }\n"
                + "      }\n"
                + "    }\n"
                + "  }\n"
                + "}\n"),
        DeltaSchemas.toParquet(s, Set.of()));
  }

  @Test
  void rejectsFieldsDifferingOnlyInCase() {
    Schema s =
        SchemaBuilder.struct()
            .field(
                "inner",
                SchemaBuilder.struct()
                    .field("id", Schema.INT32_SCHEMA)
                    .field("ID", Schema.INT32_SCHEMA)
                    .build())
            .build();
    SchemaMappingException e =
        assertThrows(SchemaMappingException.class, () -> DeltaSchemas.toDelta(s));
    assertTrue(
        e.getMessage().contains("'inner.id'") && e.getMessage().contains("'inner.ID'"),
        e.getMessage());
  }

  @Test
  void deltaSchemaSurvivesTheLogsJsonForm() {
    StructType schema = DeltaSchemas.toDelta(allTypes());
    String json = SchemaJson.write(schema);
    assertEquals(schema, SchemaJson.parse(json));
    assertTrue(json.contains("\"decimal(10,2)\""), json);
  }
}
