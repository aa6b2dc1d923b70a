package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class SchemalessJsonTest {
  /** A table someone else made, with every column type. */
  private static final StructType TABLE =
      new StructType(
          new StructField[] {
            new StructField("id", PrimitiveType.LONG, false),
            new StructField("i", PrimitiveType.INTEGER),
            new StructField("s", PrimitiveType.SHORT),
            new StructField("b", PrimitiveType.BYTE),
            new StructField("f", PrimitiveType.FLOAT),
            new StructField("d", PrimitiveType.DOUBLE),
            new StructField("flag", PrimitiveType.BOOLEAN),
            new StructField("name", PrimitiveType.STRING),
            new StructField("raw", PrimitiveType.BINARY),
            new StructField("amount", new DecimalType(6, 2)),
            new StructField("ts", PrimitiveType.TIMESTAMP),
            new StructField("day", PrimitiveType.DATE),
            new StructField(
                "who",
                new StructType(
                    new StructField[] {
                      new StructField("first", PrimitiveType.STRING),
                      new StructField("tier", PrimitiveType.INTEGER)
                    })),
            new StructField("tags", new ArrayType(PrimitiveType.STRING, true)),
            new StructField("attrs", new MapType(PrimitiveType.STRING, PrimitiveType.LONG, true)),
          });

  private static final Schema TARGET = SchemalessJson.connectSchemaOf(TABLE);

  private static Object coerce(String column, Object value) {
    return SchemalessJson.coerce(value, TARGET.field(column).schema(), column);
  }

  private static String refused(String column, Object value) {
    return assertThrows(DataException.class, () -> coerce(column, value)).getMessage();
  }

  @Test
  void theTablesSchemaMapsBackToTheSameDeltaSchema() {
    assertEquals(TABLE, DeltaSchemas.toDelta(TARGET), "no change a commit would see");
    assertTrue(!TARGET.field("id").schema().isOptional());
    assertTrue(TARGET.field("i").schema().isOptional());
  }

  @Test
  void integersGoIntoIntegerColumnsWithinRangeOnly() {
    assertEquals(7L, coerce("id", 7L));
    assertEquals(7, coerce("i", 7L));
    assertEquals((short) -300, coerce("s", -300L));
    assertEquals((byte) 127, coerce("b", 127L));
    assertEquals(Long.MAX_VALUE, coerce("id", BigInteger.valueOf(Long.MAX_VALUE)));
    String tooBig = refused("b", 128L);
    assertTrue(tooBig.contains("'b'") && tooBig.contains("128") && tooBig.contains("byte"), tooBig);
    assertTrue(refused("i", 3_000_000_000L).contains("out of range"));
    assertTrue(refused("id", new BigInteger("9223372036854775808")).contains("out of range"));
    assertTrue(refused("i", 1.5).contains("not an integer"));
    assertTrue(refused("i", 2.0).contains("not an integer"), "2.0 is a float in JSON");
    assertTrue(refused("i", "12").contains("not an integer"), "a string is not a number");
  }

  @Test
  void numbersGoIntoFloatAndDoubleColumns() {
    assertEquals(1.5f, coerce("f", 1.5));
    assertEquals(3.0f, coerce("f", 3L));
    assertEquals(2.25, coerce("d", 2.25));
    assertEquals(4.0, coerce("d", 4L));
    assertTrue(refused("f", 1e300).contains("float range"));
    assertTrue(refused("d", "2.5").contains("not a JSON number"));
  }

  @Test
  void decimalsMustFitPrecisionAndScaleExactly() {
    assertEquals(new BigDecimal("12.30"), coerce("amount", 12.3));
    assertEquals(new BigDecimal("12.34"), coerce("amount", "12.34"));
    assertEquals(new BigDecimal("7.00"), coerce("amount", 7L));
    assertEquals(new BigDecimal("9999.99"), coerce("amount", new BigDecimal("9999.99")));
    String rounding = refused("amount", 12.345);
    assertTrue(rounding.contains("more than 2 decimal places"), rounding);
    assertTrue(rounding.contains("decimal(6,2)"), rounding);
    assertTrue(refused("amount", 10000L).contains("more than 6 digits"));
    assertTrue(refused("amount", "12,5").contains("not a number"));
    assertTrue(refused("amount", true).contains("not a number"));
  }

  @Test
  void timestampsFromIsoStringsWithOffsetOrEpochMillis() {
    long ms = 1_796_379_330_123L;
    assertEquals(new java.util.Date(ms), coerce("ts", ms));
    assertEquals(new java.util.Date(ms), coerce("ts", "2026-12-04T10:15:30.123Z"));
    assertEquals(new java.util.Date(ms), coerce("ts", "2026-12-04T11:15:30.123+01:00"));
    assertTrue(refused("ts", "2026-12-04T10:15:30").contains("with offset"), "no zone: ambiguous");
    assertTrue(refused("ts", "yesterday").contains("ISO-8601"));
    assertTrue(refused("ts", 1.5).contains("'ts'"));
  }

  @Test
  void datesFromIsoDatesOrEpochDays() {
    long day = 1_796_342_400_000L;
    assertEquals(new java.util.Date(day), coerce("day", "2026-12-04"));
    assertEquals(new java.util.Date(day), coerce("day", 20_791L));
    assertTrue(refused("day", "04.12.2026").contains("ISO date"));
  }

  @Test
  void booleansStringsAndBase64Binary() {
    assertEquals(true, coerce("flag", true));
    assertTrue(refused("flag", "true").contains("not true or false"));
    assertEquals("x", coerce("name", "x"));
    assertTrue(refused("name", 5L).contains("not a JSON string"), "a number is not a string");
    assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) coerce("raw", "AQID"));
    assertTrue(refused("raw", "**").contains("not base64"));
  }

  @Test
  void objectsBecomeStructsAndMapsListsBecomeArrays() {
    Struct who = (Struct) coerce("who", Map.of("first", "Ada", "tier", 2L));
    assertEquals("Ada", who.get("first"));
    assertEquals(2, who.get("tier"));
    Struct partial = (Struct) coerce("who", Map.of("first", "Bo"));
    assertNull(partial.get("tier"), "a missing key is null");
    assertEquals(List.of("a", "b"), coerce("tags", List.of("a", "b")));
    assertEquals(Arrays.asList("a", null), coerce("tags", Arrays.asList("a", null)));
    assertEquals(Map.of("k", 3L), coerce("attrs", Map.of("k", 3L)));
    assertTrue(refused("who", "Ada").contains("not a JSON object"));
    assertTrue(refused("tags", "a").contains("not a JSON array"));
    String inner = refused("attrs", Map.of("k", "three"));
    assertTrue(inner.contains("'attrs[k]'"), inner);
    String nested = refused("who", Map.of("first", "Ada", "tier", "gold"));
    assertTrue(nested.contains("'who.tier'"), nested);
    String unknownNested = refused("who", Map.of("first", "Ada", "nick", "A"));
    assertTrue(unknownNested.contains("'who.nick'"), unknownNested);
  }

  @Test
  void aMissingValueForANotNullColumnIsRefused() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("name", "x");
    String e =
        assertThrows(DataException.class, () -> SchemalessJson.struct(json, TARGET, ""))
            .getMessage();
    assertTrue(e.contains("'id'") && e.contains("NOT NULL"), e);
  }

  @Test
  void inferenceGivesLongDoubleStringBooleanStructArrayAndWaitsOnNulls() {
    assertEquals(Schema.OPTIONAL_INT64_SCHEMA, SchemalessJson.infer(3L));
    assertEquals(Schema.OPTIONAL_FLOAT64_SCHEMA, SchemalessJson.infer(3.5));
    assertEquals(Schema.OPTIONAL_STRING_SCHEMA, SchemalessJson.infer("x"));
    assertEquals(Schema.OPTIONAL_BOOLEAN_SCHEMA, SchemalessJson.infer(false));
    assertNull(SchemalessJson.infer(null));
    assertNull(SchemalessJson.infer(List.of()));
    assertNull(SchemalessJson.infer(Map.of()));
    Schema s = SchemalessJson.infer(Map.of("a", 1L, "b", List.of(1L, 2.5)));
    assertEquals(Schema.Type.STRUCT, s.type());
    assertEquals(Schema.OPTIONAL_INT64_SCHEMA, s.field("a").schema());
    assertEquals(Schema.OPTIONAL_FLOAT64_SCHEMA, s.field("b").schema().valueSchema());
  }

  @Test
  void wideningMakesLongAndDoubleADoubleAndMergesStructs() {
    Schema a = SchemalessJson.infer(Map.of("n", 1L, "x", "s"));
    Schema b = SchemalessJson.infer(Map.of("n", 1.5, "y", true));
    Schema w = SchemalessJson.widen(a, b);
    assertEquals(Schema.OPTIONAL_FLOAT64_SCHEMA, w.field("n").schema());
    assertEquals(Schema.OPTIONAL_STRING_SCHEMA, w.field("x").schema());
    assertEquals(Schema.OPTIONAL_BOOLEAN_SCHEMA, w.field("y").schema());
    assertEquals(
        Schema.OPTIONAL_STRING_SCHEMA,
        SchemalessJson.widen(Schema.OPTIONAL_STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA),
        "conflicting types: the first wins, the other value will be errant");
  }

  @Test
  void longValuesAreShortenedInMessages() {
    String e = refused("i", "x".repeat(500));
    assertTrue(e.length() < 300, e);
  }

  @Test
  void unknownKeysAreTheNonNullOnesWithoutAField() {
    Schema s = SchemaBuilder.struct().field("a", Schema.OPTIONAL_INT64_SCHEMA).build();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("a", 1L);
    json.put("b", 2L);
    json.put("c", null);
    assertEquals(List.of("b"), SchemalessJson.unknownKeys(json, s));
  }
}
