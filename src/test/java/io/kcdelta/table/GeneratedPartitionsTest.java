package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.Protocol;
import io.kcdelta.delta.TableFeatures;
import io.kcdelta.delta.UnsupportedTableException;
import io.kcdelta.schema.GenerationExpression;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition columns generated from a field: a new table gets them as Delta generated columns from
 * the config's transforms, and the values stored (in partition values) are the expressions'. Read
 * back by Delta Kernel.
 */
class GeneratedPartitionsTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final Schema EVENT =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("sku", Schema.STRING_SCHEMA)
          .field("at", Timestamp.builder().optional().build())
          .build();
  private static final DateTimeFormatter HOUR =
      DateTimeFormatter.ofPattern("yyyy-MM-dd-HH").withZone(ZoneOffset.UTC);

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Configuration conf = new Configuration();
  private String table;

  @BeforeEach
  void setUp() {
    table = dir.resolve("t").toUri().toString();
  }

  private static final String[] SETTINGS = {
    "delta.table.partition.columns", "event_date=day(at),hour(at),truncate(sku, 2)"
  };

  private static Instant instant(long id) {
    // Across days and hours, before and after the epoch's midnight.
    return Instant.parse("1969-12-31T20:00:00Z").plusSeconds(id * 3_917);
  }

  private static List<SinkRecord> events(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long id = from; id < to; id++) {
      Struct v =
          new Struct(EVENT)
              .put("id", id)
              .put("sku", "s" + (id % 7) + "-x")
              .put("at", id % 10 == 9 ? null : Date.from(instant(id)));
      out.add(new SinkRecord(TP.topic(), 0, null, null, EVENT, v, id));
    }
    return out;
  }

  private void putAndCommit(DeltaSinkWriter w, List<SinkRecord> records) {
    w.put(records);
    clock.addAndGet(1_000);
    w.put(List.of());
  }

  @Test
  void aNewTableGetsGeneratedPartitionColumnsAndTheirValues() {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = Writers.opened(table, ctx, clock::get, TP, SETTINGS);
    putAndCommit(w, events(0, 60));
    w.stop();
    // A restart reads its own expressions back and goes on.
    DeltaSinkWriter again = Writers.opened(table, new FakeSinkContext(), clock::get, TP, SETTINGS);
    putAndCommit(again, events(60, 100));
    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);

    StructType schema = DeltaTables.schema(conf, table);
    assertEquals(
        List.of("id", "sku", "at", "event_date", "at_hour", "sku_trunc"), schema.fieldNames());
    assertEquals(
        "CAST(at AS DATE)",
        schema.field("event_date").metadata().get(GenerationExpression.METADATA_KEY));
    assertEquals(PrimitiveType.DATE, schema.field("event_date").type());
    assertEquals(
        "DATE_FORMAT(at, 'yyyy-MM-dd-HH')",
        schema.field("at_hour").metadata().get(GenerationExpression.METADATA_KEY));
    assertEquals(
        "SUBSTRING(sku, 1, 2)",
        schema.field("sku_trunc").metadata().get(GenerationExpression.METADATA_KEY));
    assertEquals(
        List.of("event_date", "at_hour", "sku_trunc"), DeltaTables.partitionColumns(conf, table));
    var protocol = DeltaTables.snapshot(conf, table).getProtocol();
    assertEquals(1, protocol.getMinReaderVersion());
    assertEquals(4, protocol.getMinWriterVersion(), "as Spark makes a generated-column table");

    List<Map<String, Object>> rows = DeltaTables.rows(conf, table);
    assertEquals(100, rows.size());
    for (Map<String, Object> row : rows) {
      long id = (Long) row.get("id");
      boolean noTime = id % 10 == 9;
      Instant at = instant(id);
      assertEquals(
          noTime ? null : LocalDate.ofInstant(at, ZoneOffset.UTC),
          toDate(row.get("event_date")),
          row.toString());
      assertEquals(noTime ? null : HOUR.format(at), row.get("at_hour"), row.toString());
      assertEquals("s" + (id % 7), row.get("sku_trunc"), row.toString());
    }
  }

  private static LocalDate toDate(Object kernelDate) {
    return kernelDate == null ? null : LocalDate.ofEpochDay(((Number) kernelDate).longValue());
  }

  @Test
  void aRecordThatCarriesAGeneratedColumnMustCarryItsValue() {
    Schema withDate =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("sku", Schema.STRING_SCHEMA)
            .field("at", Timestamp.builder().optional().build())
            .field("event_date", org.apache.kafka.connect.data.Date.SCHEMA)
            .build();
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        Writers.opened(
            table, ctx, clock::get, TP, SETTINGS[0], SETTINGS[1], "errors.tolerance", "all");
    Date at = Date.from(Instant.parse("2024-05-01T10:00:00Z"));
    Date sameDay = Date.from(Instant.parse("2024-05-01T00:00:00Z"));
    Date otherDay = Date.from(Instant.parse("2024-05-02T00:00:00Z"));
    List<SinkRecord> records = new ArrayList<>();
    for (Date eventDate : List.of(sameDay, otherDay)) {
      long id = records.size() + 1;
      Struct v =
          new Struct(withDate)
              .put("id", id)
              .put("sku", "ab")
              .put("at", at)
              .put("event_date", eventDate);
      records.add(new SinkRecord("t", 0, null, null, withDate, v, id - 1));
    }
    putAndCommit(w, records);
    assertEquals(1, ctx.errant.size(), "the record whose event_date is not CAST(at AS DATE)");
    assertEquals(2L, ((Struct) ctx.errant.get(0).value()).get("id"));
    assertEquals(1, DeltaTables.rows(conf, table).size());
  }

  @Test
  void generatedColumnsTheConnectorCannotComputeAreRefusedNamingThem() {
    StructType schema =
        new StructType(
            new StructField("ts", PrimitiveType.TIMESTAMP),
            new StructField(
                "d",
                PrimitiveType.DATE,
                true,
                Map.of(GenerationExpression.METADATA_KEY, "CAST(ts AS DATE)")),
            new StructField(
                "upper",
                PrimitiveType.STRING,
                true,
                Map.of(GenerationExpression.METADATA_KEY, "UPPER(name)")));
    Protocol v4 = new Protocol(1, 4, null, null);
    // A computed partition column is fine.
    StructType computed = new StructType(schema.fields().subList(0, 2));
    TableFeatures.checkWritable("t", v4, Metadata.create(computed, List.of("d"), Map.of()));
    // One stored in the files (not a partition column), or of another form, is not.
    UnsupportedTableException stored =
        assertThrows(
            UnsupportedTableException.class,
            () ->
                TableFeatures.checkWritable("t", v4, Metadata.create(schema, List.of(), Map.of())));
    assertTrue(stored.getMessage().contains("column 'd' (CAST(ts AS DATE))"), stored.getMessage());
    assertTrue(stored.getMessage().contains("column 'upper' (UPPER(name))"), stored.getMessage());
    // The wrong type for the form: a partition column of type string generated as a date.
    StructType wrongType =
        new StructType(
            new StructField("ts", PrimitiveType.TIMESTAMP),
            new StructField(
                "d",
                PrimitiveType.STRING,
                true,
                Map.of(GenerationExpression.METADATA_KEY, "CAST(ts AS DATE)")));
    assertThrows(
        UnsupportedTableException.class,
        () ->
            TableFeatures.checkWritable(
                "t", v4, Metadata.create(wrongType, List.of("d"), Map.of())));
  }
}
