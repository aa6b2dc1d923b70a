package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

class PartitionValuesTest {

  @Test
  void scalarTypesArePartitionable() {
    for (Schema s :
        new Schema[] {
          Schema.INT8_SCHEMA,
          Schema.INT16_SCHEMA,
          Schema.INT32_SCHEMA,
          Schema.OPTIONAL_INT64_SCHEMA,
          Schema.FLOAT32_SCHEMA,
          Schema.FLOAT64_SCHEMA,
          Schema.BOOLEAN_SCHEMA,
          Schema.STRING_SCHEMA,
          Decimal.schema(2),
          Date.SCHEMA,
          Timestamp.SCHEMA,
          Time.SCHEMA
        }) {
      assertDoesNotThrow(() -> PartitionValues.checkPartitionable("c", s), String.valueOf(s));
    }
  }

  @Test
  void complexAndBinaryTypesAreNot() {
    for (Schema s :
        new Schema[] {
          Schema.BYTES_SCHEMA,
          SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build(),
          SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
          SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build()
        }) {
      SchemaMappingException e =
          assertThrows(
              SchemaMappingException.class, () -> PartitionValues.checkPartitionable("region", s));
      assertTrue(
          e.getMessage().contains("'region'") && e.getMessage().contains(s.type().toString()),
          e.getMessage());
    }
    assertThrows(
        SchemaMappingException.class, () -> PartitionValues.checkPartitionable("gone", null));
  }

  @Test
  void formatsLikeDelta() {
    assertEquals("-7", PartitionValues.format((byte) -7, Schema.INT8_SCHEMA));
    assertEquals("300", PartitionValues.format((short) 300, Schema.INT16_SCHEMA));
    assertEquals("42", PartitionValues.format(42, Schema.INT32_SCHEMA));
    assertEquals("9000000000", PartitionValues.format(9_000_000_000L, Schema.INT64_SCHEMA));
    assertEquals("1.5", PartitionValues.format(1.5f, Schema.FLOAT32_SCHEMA));
    assertEquals("2.25", PartitionValues.format(2.25d, Schema.FLOAT64_SCHEMA));
    assertEquals("true", PartitionValues.format(true, Schema.BOOLEAN_SCHEMA));
    assertEquals("false", PartitionValues.format(false, Schema.BOOLEAN_SCHEMA));
    assertEquals("eu/west", PartitionValues.format("eu/west", Schema.STRING_SCHEMA));
    assertEquals("0.00000012", PartitionValues.format(new BigDecimal("1.2E-7"), Decimal.schema(8)));
    assertEquals("12300", PartitionValues.format(new BigDecimal("1.23E+4"), Decimal.schema(-2)));
  }

  @Test
  void formatsDatesAndTimesInUtc() {
    java.util.Date day = java.util.Date.from(Instant.parse("2024-02-29T00:00:00Z"));
    assertEquals("2024-02-29", PartitionValues.format(day, Date.SCHEMA));
    java.util.Date before1970 = java.util.Date.from(Instant.parse("1969-12-31T00:00:00Z"));
    assertEquals("1969-12-31", PartitionValues.format(before1970, Date.SCHEMA));
    java.util.Date ts = java.util.Date.from(Instant.parse("2024-01-02T03:04:05.678Z"));
    assertEquals("2024-01-02 03:04:05.678000", PartitionValues.format(ts, Timestamp.SCHEMA));
    java.util.Date time = new java.util.Date(3_723_004L); // 01:02:03.004
    assertEquals("3723004", PartitionValues.format(time, Time.SCHEMA));
  }

  @Test
  void nullIsNull() {
    assertNull(PartitionValues.format(null, Schema.OPTIONAL_STRING_SCHEMA));
    assertNull(PartitionValues.format(null, Timestamp.builder().optional().build()));
  }
}
