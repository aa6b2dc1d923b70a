package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.schema.FileColumns;
import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.JsonText;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends to tables with the features whose rules touch every written file or commit, read back by
 * Delta Kernel alone: column mapping (physical names, field ids, stats and partition values by
 * physical name, added columns), a narrower field into a wider column, type widening of a column, a
 * Connect timestamp into timestamp_ntz, and a new table with several features at once.
 */
class TableFeatureWritesTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final String APP_ID = "sink-t-0";

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Configuration conf = new Configuration();
  private String table;

  @BeforeEach
  void setUp() {
    table = dir.resolve("t").toUri().toString();
  }

  private void putAndCommit(DeltaSinkWriter w, List<SinkRecord> records) {
    w.put(records);
    clock.addAndGet(1_000);
    w.put(List.of());
  }

  private static SinkRecord record(Schema schema, Struct value, long offset) {
    return new SinkRecord(TP.topic(), TP.partition(), null, null, schema, value, offset);
  }

  private static final Schema ADDRESS =
      SchemaBuilder.struct().field("city", Schema.STRING_SCHEMA).optional().build();
  private static final Schema V1 =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .field("address", ADDRESS)
          .build();
  private static final Schema V2 =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .field("address", ADDRESS)
          .field("note", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @Test
  void aColumnMappedTableGetsPhysicalNamesIdsAndAddedColumns() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        Writers.opened(
            table,
            ctx,
            clock::get,
            TP,
            "delta.table.properties.delta.columnMapping.mode",
            "name",
            "delta.table.partition.columns",
            "region");
    List<SinkRecord> first = new ArrayList<>();
    for (long o = 0; o < 3; o++) {
      first.add(
          record(
              V1,
              new Struct(V1)
                  .put("id", o)
                  .put("region", "eu")
                  .put("address", new Struct(ADDRESS).put("city", "c" + o)),
              o));
    }
    putAndCommit(w, first);
    putAndCommit(
        w,
        List.of(
            record(V2, new Struct(V2).put("id", 3L).put("region", "us").put("note", "added"), 3)));

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    StructType schema = DeltaTables.schema(conf, table);
    assertEquals(List.of("id", "region", "address", "note"), schema.fieldNames());
    Map<String, String> physical = new LinkedHashMap<>();
    for (StructField f : schema.fields()) {
      physical.put(f.name(), (String) f.metadata().get(FileColumns.PHYSICAL_NAME));
      assertTrue(physical.get(f.name()).startsWith("col-"), f.toString());
      assertNotNull(f.metadata().get(FileColumns.ID), f.toString());
    }
    // Kernel resolves the files by physical name: every value comes back under its column.
    List<Map<String, Object>> rows = DeltaTables.rows(conf, table);
    rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
    assertEquals(4, rows.size());
    assertEquals("eu", rows.get(0).get("region"));
    assertEquals("us", rows.get(3).get("region"));
    assertEquals("added", rows.get(3).get("note"));
    assertEquals(null, rows.get(0).get("note"));
    // The files hold physical names and field ids; the log keys partition values and stats so.
    for (DeltaTables.LiveFile f : DeltaTables.files(conf, table)) {
      assertEquals(List.of(physical.get("region")), List.copyOf(f.partitionValues().keySet()));
      Map<?, ?> stats = (Map<?, ?>) JsonParser.parse(f.stats());
      assertTrue(((Map<?, ?>) stats.get("minValues")).containsKey(physical.get("id")), f.stats());
      MessageType parquet = footer(f.path());
      assertTrue(parquet.containsField(physical.get("id")), parquet.toString());
      assertFalse(parquet.containsField("id"), parquet.toString());
      assertNotNull(parquet.getType(physical.get("id")).getId(), parquet.toString());
    }
    String max =
        DeltaTables.snapshot(conf, table)
            .getMetadata()
            .getConfiguration()
            .get("delta.columnMapping.maxColumnId");
    assertEquals("5", max, "id, region, address, address.city, note");
  }

  @Test
  void aNarrowerFieldIsWrittenAtItsColumnsTypeAndATableWithTypeWideningWidensTheColumn()
      throws Exception {
    Schema ints =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("n", Schema.INT32_SCHEMA)
            .field("ratio", Schema.FLOAT32_SCHEMA)
            .build();
    Schema longs =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("n", Schema.INT64_SCHEMA)
            .field("ratio", Schema.FLOAT32_SCHEMA)
            .build();
    createTable(
        "[\"typeWidening\"]",
        "[\"typeWidening\"]",
        new StructType(
            new StructField("id", PrimitiveType.LONG, false),
            new StructField("n", PrimitiveType.INTEGER, false),
            new StructField("ratio", PrimitiveType.DOUBLE, false)),
        Map.of("delta.enableTypeWidening", "true"));
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = Writers.opened(table, ctx, clock::get, TP);
    putAndCommit(
        w, List.of(record(ints, new Struct(ints).put("id", 1).put("n", 7).put("ratio", 0.5f), 0)));
    putAndCommit(
        w,
        List.of(
            record(
                longs, new Struct(longs).put("id", 2).put("n", 1L << 40).put("ratio", 0.25f), 1)));

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    StructField n = DeltaTables.schema(conf, table).field("n");
    assertEquals(PrimitiveType.LONG, n.type());
    assertEquals(
        List.of(Map.of("fromType", "integer", "toType", "long")),
        n.metadata().get(SchemaEvolution.TYPE_CHANGES));
    List<Map<String, Object>> rows = DeltaTables.rows(conf, table);
    rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
    assertEquals(List.of(1L, 2L), rows.stream().map(r -> r.get("id")).toList());
    assertEquals(List.of(7L, 1L << 40), rows.stream().map(r -> r.get("n")).toList());
    assertEquals(List.of(0.5, 0.25), rows.stream().map(r -> r.get("ratio")).toList());
  }

  @Test
  void aConnectTimestampGoesIntoATimestampNtzColumnAsItsUtcWallTime() throws Exception {
    Schema schema =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("at", Timestamp.SCHEMA)
            .build();
    createTable(
        "[\"timestampNtz\"]",
        "[\"timestampNtz\"]",
        new StructType(
            new StructField("id", PrimitiveType.LONG, false),
            new StructField("at", PrimitiveType.TIMESTAMP_NTZ, false)),
        Map.of());
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = Writers.opened(table, ctx, clock::get, TP);
    long millis = 1_764_844_530_123L;
    putAndCommit(
        w,
        List.of(
            record(
                schema,
                new Struct(schema).put("id", 1L).put("at", new java.util.Date(millis)),
                0)));

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    assertEquals(millis * 1000, DeltaTables.rows(conf, table).get(0).get("at"));
    String stats = DeltaTables.files(conf, table).get(0).stats();
    assertTrue(stats.contains("\"at\":\"2025-12-04T10:35:30.123\""), stats);
  }

  @Test
  void aNewTableWithDeletionVectorsRowTrackingAndInCommitTimestampsIsReadByKernel()
      throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        Writers.opened(
            table,
            ctx,
            clock::get,
            TP,
            "delta.table.properties.delta.enableDeletionVectors",
            "true",
            "delta.table.properties.delta.enableRowTracking",
            "true",
            "delta.table.properties.delta.enableInCommitTimestamps",
            "true",
            "delta.table.properties.delta.enableChangeDataFeed",
            "true");
    for (long batch = 0; batch < 3; batch++) {
      List<SinkRecord> records = new ArrayList<>();
      for (long o = batch * 4; o < batch * 4 + 4; o++) {
        records.add(record(V1, new Struct(V1).put("id", o).put("region", "eu"), o));
      }
      putAndCommit(w, records);
    }

    assertEquals(
        java.util.Set.of(
            "changeDataFeed",
            "deletionVectors",
            "domainMetadata",
            "inCommitTimestamp",
            "invariants",
            "rowTracking"),
        DeltaTables.features(conf, table),
        "invariants: the record's required fields are NOT NULL columns");
    assertEquals(11L, DeltaTables.txnVersions(conf, table, List.of(APP_ID)).get(APP_ID));
    assertEquals(
        List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L),
        DeltaTables.rows(conf, table).stream().map(r -> (Long) r.get("id")).sorted().toList());
    assertEquals(
        "{\"rowIdHighWaterMark\":11}",
        DeltaTables.snapshot(conf, table).getDomainMetadata("delta.rowTracking").orElseThrow());
  }

  @Test
  void aClusteredTablesFilesHaveStatsForTheClusteringColumnBeyondTheFirst32() throws Exception {
    SchemaBuilder wide = SchemaBuilder.struct();
    List<StructField> columns = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      wide.field("c" + i, Schema.INT64_SCHEMA);
      columns.add(new StructField("c" + i, PrimitiveType.LONG, false));
    }
    Schema schema = wide.build();
    createTable("[]", "[\"clustering\",\"domainMetadata\"]", new StructType(columns), Map.of());
    Files.writeString(
        dir.resolve("t/_delta_log/00000000000000000001.json"),
        "{\"domainMetadata\":{\"domain\":\"delta.clustering\",\"configuration\":"
            + "\"{\\\"clusteringColumns\\\":[[\\\"c39\\\"]]}\",\"removed\":false}}\n");
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = Writers.opened(table, ctx, clock::get, TP);
    Struct value = new Struct(schema);
    for (int i = 0; i < 40; i++) {
      value.put("c" + i, (long) i);
    }
    putAndCommit(w, List.of(record(schema, value, 0)));

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    Map<?, ?> stats = (Map<?, ?>) JsonParser.parse(DeltaTables.files(conf, table).get(0).stats());
    Map<?, ?> min = (Map<?, ?>) stats.get("minValues");
    assertEquals(39L, ((Number) min.get("c39")).longValue(), stats.toString());
    assertTrue(min.containsKey("c31") && !min.containsKey("c32"), "32 first columns and c39");
  }

  /** A table another writer created with this protocol, schema and properties. */
  private void createTable(
      String readerFeatures, String writerFeatures, StructType schema, Map<String, String> props)
      throws Exception {
    Path log = dir.resolve("t").resolve("_delta_log");
    Files.createDirectories(log);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("id", "x");
    metadata.put("format", Map.of("provider", "parquet", "options", Map.of()));
    metadata.put("schemaString", io.kcdelta.schema.SchemaJson.write(schema));
    metadata.put("partitionColumns", List.of());
    metadata.put("configuration", props);
    metadata.put("createdTime", 1);
    Files.writeString(
        log.resolve("00000000000000000000.json"),
        "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
            + readerFeatures
            + ",\"writerFeatures\":"
            + writerFeatures
            + "}}\n"
            + JsonText.write(Map.of("metaData", metadata))
            + "\n");
  }

  private MessageType footer(String logPath) throws Exception {
    org.apache.hadoop.fs.Path file =
        io.kcdelta.delta.LogPaths.absolute(new org.apache.hadoop.fs.Path(table), logPath);
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }
}
