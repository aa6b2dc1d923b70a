package io.kcdelta.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordColumnsTest {
  private static final Schema VALUE =
      SchemaBuilder.struct().name("Order").field("id", Schema.INT64_SCHEMA).build();

  /** 2026-12-04T10:15:30.123Z */
  private static final long TS = 1796379330123L;

  private static final long DAY = 1796342400000L;

  private static RecordColumns columns(String... kv) {
    Map<String, String> p = new HashMap<>();
    p.put("name", "sink");
    p.put("delta.table.path", "file:///tmp/t");
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return RecordColumns.of(new DeltaSinkConfig(p), RecordOrigin.ORIGINAL);
  }

  private static SinkRecord record(Schema keySchema, Object key, Long timestamp) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("trace", "abc");
    headers.addInt("retries", 3);
    headers.addString("trace", "def");
    headers.add("empty", null, null);
    return new SinkRecord(
        "orders",
        4,
        keySchema,
        key,
        VALUE,
        new Struct(VALUE).put("id", 7L),
        1234L,
        timestamp,
        timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME,
        headers);
  }

  private static Struct row(RecordColumns columns, SinkRecord record) {
    return columns.row(record, (Struct) record.value());
  }

  @Test
  void nothingConfiguredAddsNothing() {
    assertNull(columns());
    assertNull(columns("delta.record.metadata.column", "meta"), "a name alone adds nothing");
  }

  @Test
  void everyMetadataFieldHoldsTheRecordsKafkaCoordinatesInTheStructsFixedOrder() {
    RecordColumns c =
        columns(
            "delta.record.metadata.columns",
            "headers,offset,timestamp.type,timestamp,partition,topic");
    Struct row = row(c, record(null, null, TS));

    assertEquals(List.of("id", "_kafka"), row.schema().fields().stream().map(Field::name).toList());
    assertEquals(7L, row.get("id"));
    Struct kafka = row.getStruct("_kafka");
    assertEquals(
        List.of("topic", "partition", "offset", "timestamp", "timestamp_type", "headers"),
        kafka.schema().fields().stream().map(Field::name).toList());
    assertEquals("orders", kafka.get("topic"));
    assertEquals(4, kafka.get("partition"));
    assertEquals(1234L, kafka.get("offset"));
    assertEquals(new java.util.Date(TS), kafka.get("timestamp"));
    assertEquals(Timestamp.LOGICAL_NAME, kafka.schema().field("timestamp").schema().name());
    assertEquals("CreateTime", kafka.get("timestamp_type"));
    List<Struct> headers = kafka.getArray("headers");
    assertEquals(
        List.of("trace=abc", "retries=3", "trace=def", "empty=null"),
        headers.stream().map(h -> h.get("key") + "=" + h.get("value")).toList(),
        "every header in order, duplicates kept, values as strings");
    assertTrue(row.schema().field("_kafka").schema().isOptional());
  }

  @Test
  void onlyTheListedFieldsUnderTheConfiguredName() {
    Struct row =
        row(
            columns(
                "delta.record.metadata.columns", "offset,partition",
                "delta.record.metadata.column", "meta"),
            record(null, null, TS));
    Struct meta = row.getStruct("meta");
    assertEquals(
        List.of("partition", "offset"), meta.schema().fields().stream().map(Field::name).toList());
  }

  @Test
  void aRecordWithoutATimestampHasNullTimestampAndDate() {
    Struct row =
        row(
            columns(
                "delta.record.metadata.columns", "timestamp,timestamp.type",
                "delta.record.timestamp.date.column", "kafka_date"),
            record(null, null, null));
    assertNull(row.getStruct("_kafka").get("timestamp"));
    assertEquals("NoTimestampType", row.getStruct("_kafka").get("timestamp_type"));
    assertNull(row.get("kafka_date"));
  }

  @Test
  void theDateColumnIsTheUtcDayOfTheTimestamp() {
    RecordColumns c = columns("delta.record.timestamp.date.column", "kafka_date");
    Struct row = row(c, record(null, null, TS));
    assertEquals(new java.util.Date(DAY), row.get("kafka_date"));
    assertEquals(Date.LOGICAL_NAME, row.schema().field("kafka_date").schema().name());
    assertEquals(
        new java.util.Date(-86_400_000L),
        row(c, record(null, null, -1L)).get("kafka_date"),
        "before 1970: the day it falls in, not the next one");
  }

  @Test
  void aStringKeyIsAStringColumnAndANullKeyIsNull() {
    RecordColumns c = columns("delta.record.key.column", "key");
    Struct row = row(c, record(Schema.OPTIONAL_STRING_SCHEMA, "customer-9", TS));
    assertEquals("customer-9", row.get("key"));
    assertSame(Schema.OPTIONAL_STRING_SCHEMA, row.schema().field("key").schema());
    assertNull(row(c, record(Schema.OPTIONAL_STRING_SCHEMA, null, TS)).get("key"));
  }

  @Test
  void aBytesKeyIsABinaryColumn() {
    RecordColumns c = columns("delta.record.key.column", "key");
    Struct row = row(c, record(Schema.BYTES_SCHEMA, new byte[] {1, 2}, TS));
    assertArrayEquals(new byte[] {1, 2}, (byte[]) row.get("key"));
    assertEquals(Schema.Type.BYTES, row.schema().field("key").schema().type());
    assertTrue(
        row.schema().field("key").schema().isOptional(), "nullable, though the key's is not");
  }

  @Test
  void aStructKeyIsANullableStructColumnWithTheKeysFields() {
    Schema keySchema =
        SchemaBuilder.struct()
            .name("Key")
            .field("region", Schema.STRING_SCHEMA)
            .field("n", Schema.INT32_SCHEMA)
            .build();
    RecordColumns c = columns("delta.record.key.column", "key");
    Struct row =
        row(c, record(keySchema, new Struct(keySchema).put("region", "eu").put("n", 5), TS));
    Struct key = row.getStruct("key");
    assertEquals("eu", key.get("region"));
    assertEquals(5, key.get("n"));
    assertTrue(key.schema().isOptional());
    assertEquals(keySchema.fields(), key.schema().fields());
  }

  @Test
  void aKeyWithoutSchemaIsWrittenAsItsStringForm() {
    RecordColumns c = columns("delta.record.key.column", "key");
    assertEquals("42", row(c, record(null, 42L, TS)).get("key"));
    assertEquals("k", row(c, record(null, "k", TS)).get("key"));
    assertSame(
        Schema.OPTIONAL_STRING_SCHEMA, row(c, record(null, 1, TS)).schema().field("key").schema());
  }

  @Test
  void allAddedColumnsComeAfterTheValueInOneOrder() {
    Struct row =
        row(
            columns(
                "delta.record.timestamp.date.column", "kafka_date",
                "delta.record.key.column", "key",
                "delta.record.metadata.columns", "offset"),
            record(Schema.OPTIONAL_STRING_SCHEMA, "k", TS));
    assertEquals(
        List.of("id", "_kafka", "key", "kafka_date"),
        row.schema().fields().stream().map(Field::name).toList());
  }

  @Test
  void recordsOfOneSchemaShareOneRowSchema() {
    RecordColumns c = columns("delta.record.metadata.columns", "offset");
    SinkRecord a = record(null, null, TS);
    SinkRecord b = record(null, null, TS + 1);
    assertSame(row(c, a).schema(), row(c, b).schema(), "the table's layout is cached by schema");
  }

  @Test
  void aValueFieldWithTheNameOfAnAddedColumnIsRefusedNamingTheSetting() {
    Schema clashing =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("Kafka_Date", Schema.STRING_SCHEMA)
            .build();
    RecordColumns c = columns("delta.record.timestamp.date.column", "kafka_date");
    SinkRecord r =
        new SinkRecord(
            "orders",
            0,
            null,
            null,
            clashing,
            new Struct(clashing).put("id", 1L).put("Kafka_Date", "x"),
            0);
    DataException e = assertThrows(DataException.class, () -> c.row(r, (Struct) r.value()));
    assertTrue(e.getMessage().contains("'Kafka_Date'"), e.getMessage());
    assertTrue(e.getMessage().contains("delta.record.timestamp.date.column"), e.getMessage());
  }
}
