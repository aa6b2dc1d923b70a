package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.kcdelta.it.infra.SparkSql;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tables teams have today, written by the connector beside Spark (Spark 4.0.1 + Delta 4.0.1, in
 * a JVM of its own): Spark creates a table per feature set, the connector fills them through a real
 * Connect cluster that loses and regains a worker, Spark reads every row and value and finds the
 * features and properties as it made them; then Spark DELETEs (deletion vectors) and OPTIMIZEs
 * while the connector goes on appending, and every table ends with exactly the expected rows. A
 * table the connector creates with deletion vectors, change data feed and in-commit timestamps is
 * read by Spark, change feed included. Prints the matrix it ran.
 */
@Tag("heavy")
class SparkInteropIT {
  private static final String CONNECTOR = "interop";
  private static final int PARTITIONS = 4;
  private static final int PHASE1 = 2_000;
  private static final int PHASE2 = 2_000;
  private static final long BASE_MS = 1_764_000_000_000L;

  private static final String COLUMNS =
      "id BIGINT, region STRING, amount DECIMAL(10,2), at TIMESTAMP, local_at TIMESTAMP_NTZ,"
          + " qty BIGINT, note STRING";

  /** Table (topic) → how Spark creates it; the connector creates "created". */
  private static final Map<String, String> SPARK_TABLES = new LinkedHashMap<>();

  static {
    SPARK_TABLES.put(
        "dv_cm_ict",
        "TBLPROPERTIES ('delta.enableDeletionVectors'='true', 'delta.columnMapping.mode'='name',"
            + " 'delta.enableInCommitTimestamps'='true')");
    SPARK_TABLES.put(
        "v2_rowtracking_widening",
        "TBLPROPERTIES ('delta.checkpointPolicy'='v2', 'delta.enableRowTracking'='true',"
            + " 'delta.enableTypeWidening'='true', 'delta.checkpointInterval'='5')");
    SPARK_TABLES.put(
        "append_cdf_vacuum",
        "TBLPROPERTIES ('delta.appendOnly'='true', 'delta.enableChangeDataFeed'='true',"
            + " 'delta.feature.vacuumProtocolCheck'='supported')");
    SPARK_TABLES.put(
        "clustered", "CLUSTER BY (region) TBLPROPERTIES ('delta.enableDeletionVectors'='true')");
    SPARK_TABLES.put(
        "everything",
        "CLUSTER BY (region) TBLPROPERTIES ('delta.enableDeletionVectors'='true',"
            + " 'delta.columnMapping.mode'='name', 'delta.enableInCommitTimestamps'='true',"
            + " 'delta.checkpointPolicy'='v2', 'delta.enableRowTracking'='true',"
            + " 'delta.enableTypeWidening'='true', 'delta.enableChangeDataFeed'='true',"
            + " 'delta.feature.vacuumProtocolCheck'='supported', 'delta.checkpointInterval'='5')");
  }

  private static final Schema AMOUNT =
      Decimal.builder(2).parameter("connect.decimal.precision", "10").build();
  private static final Schema RECORD =
      SchemaBuilder.struct()
          .name("Event")
          .field("id", Schema.INT64_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .field("amount", AMOUNT)
          .field("at", Timestamp.SCHEMA)
          .field("local_at", Timestamp.SCHEMA)
          .field("qty", Schema.INT32_SCHEMA)
          .field("note", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @TempDir Path dir;
  private final Configuration conf = new Configuration();
  private final JsonConverter json = new JsonConverter();

  private String path(String table) {
    return dir.resolve(table).toUri().toString();
  }

  private String ref(String table) {
    return "delta.`" + path(table) + "`";
  }

  @Test
  void sparksTablesWithTodaysFeaturesTakeTheConnectorsAppendsBesideSparksDeletesAndOptimize()
      throws Exception {
    json.configure(Map.of("schemas.enable", "true", "decimal.format", "NUMERIC"), false);
    List<String> tables = new ArrayList<>(SPARK_TABLES.keySet());
    tables.add("created");
    Map<String, String> matrix = new LinkedHashMap<>();
    try (SparkSql spark = SparkSql.start()) {
      Map<String, JsonNode> created = new TreeMap<>();
      // The change feed is read from the connector's first version on: Spark cannot read it across
      // its own type change of a column-mapped table (its CDF schema check).
      Map<String, Long> setupVersion = new TreeMap<>();
      for (Map.Entry<String, String> t : SPARK_TABLES.entrySet()) {
        String table = t.getKey();
        boolean widened = t.getValue().contains("enableTypeWidening");
        spark.sql(
            "CREATE TABLE "
                + ref(table)
                + " ("
                + (widened ? COLUMNS.replace("qty BIGINT", "qty INT") : COLUMNS)
                + ") USING delta "
                + t.getValue());
        if (widened) {
          // Spark widens the column itself: the table carries the type change.
          spark.sql("ALTER TABLE " + ref(table) + " CHANGE COLUMN qty TYPE BIGINT");
        }
        created.put(table, detail(spark, table));
        setupVersion.put(
            table,
            spark
                .sql("DESCRIBE HISTORY " + ref(table) + " LIMIT 1")
                .get(0)
                .get("version")
                .asLong());
      }

      EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 2);
      try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
        Map<String, String> c =
            ConnectCluster.tablePerTopicConfig(
                connect, tables, PARTITIONS, 4, dir.toUri().toString());
        c.put("delta.table.properties.delta.enableDeletionVectors", "true");
        c.put("delta.table.properties.delta.enableChangeDataFeed", "true");
        c.put("delta.table.properties.delta.enableInCommitTimestamps", "true");
        ConnectCluster.runConnector(connect, CONNECTOR, c, 4);

        produce(producer, tables, 0, PHASE1 / 2);
        awaitOffsets(connect, tables, PHASE1 / 2 / PARTITIONS - 1, 120_000);
        WorkerHandle leaving = connect.workers().iterator().next();
        connect.removeWorker(leaving);
        connect.addWorker();
        produce(producer, tables, PHASE1 / 2, PHASE1);
        awaitOffsets(connect, tables, PHASE1 / PARTITIONS - 1, 180_000);

        for (String table : tables) {
          checkRows(spark, table, PHASE1, false);
          if (created.containsKey(table)) {
            JsonNode now = detail(spark, table);
            assertEquals(created.get(table).get("tableFeatures"), now.get("tableFeatures"), table);
            assertEquals(created.get(table).get("properties"), now.get("properties"), table);
          }
        }
        JsonNode ours = detail(spark, "created");
        for (String feature : List.of("deletionVectors", "changeDataFeed", "inCommitTimestamp")) {
          assertTrue(ours.get("tableFeatures").toString().contains(feature), ours.toString());
        }

        // Spark deletes phase-1 rows (deletion vectors where the table has them) and compacts,
        // while the connector commits phase 2.
        produce(producer, tables, PHASE1, PHASE1 + PHASE2);
        for (String table : SPARK_TABLES.keySet()) {
          if (!table.startsWith("append")) {
            spark.sqlRetryingConflicts(
                "DELETE FROM " + ref(table) + " WHERE id < " + PHASE1 + " AND id % 10 = 0", 5);
          }
          spark.sqlRetryingConflicts("OPTIMIZE " + ref(table), 5);
        }
        awaitOffsets(connect, tables, (PHASE1 + PHASE2) / PARTITIONS - 1, 180_000);

        for (String table : tables) {
          boolean deleted = SPARK_TABLES.containsKey(table) && !table.startsWith("append");
          long rows = checkRows(spark, table, PHASE1 + PHASE2, deleted);
          JsonNode d = detail(spark, table);
          matrix.put(
              table,
              rows
                  + " rows, protocol ("
                  + d.get("minReaderVersion")
                  + ","
                  + d.get("minWriterVersion")
                  + ") "
                  + d.get("tableFeatures")
                  + (deleted
                      ? ", Spark DELETE + OPTIMIZE during appends"
                      : ", Spark OPTIMIZE during appends"));
        }
        for (String table : List.of("created", "append_cdf_vacuum", "everything")) {
          long inserts =
              spark
                  .value(
                      "SELECT count(*) FROM table_changes_by_path('"
                          + path(table)
                          + "', "
                          + (setupVersion.getOrDefault(table, -1L) + 1)
                          + ") WHERE _change_type = 'insert'")
                  .asLong();
          assertEquals(PHASE1 + PHASE2, inserts, table + ": the change feed's inserts");
        }
      } finally {
        connect.stop();
      }
    } finally {
      System.out.println("Spark interop matrix (table: rows, protocol, features, Spark's writes):");
      matrix.forEach((t, r) -> System.out.println("  " + t + ": " + r + ": OK"));
    }
  }

  /** Checks the table's rows as Spark reads them; returns how many there are. */
  private long checkRows(SparkSql spark, String table, int produced, boolean deleted) {
    long expected = deleted ? produced - PHASE1 / 10 : produced;
    JsonNode counts =
        spark
            .sql(
                "SELECT count(*) AS n, count(DISTINCT id) AS ids, min(id) AS lo, max(id) AS hi FROM "
                    + ref(table))
            .get(0);
    assertEquals(expected, counts.get("n").asLong(), table + ": " + counts);
    assertEquals(expected, counts.get("ids").asLong(), table + ": every id once");
    assertEquals(produced - 1, counts.get("hi").asLong(), table);
    long wrong =
        spark
            .value(
                "SELECT count(*) FROM "
                    + ref(table)
                    + " WHERE region <> concat('r', CAST(id % 4 AS STRING))"
                    + " OR amount <> CAST(id AS DECIMAL(12,0)) / 100"
                    + " OR at <> timestamp_millis("
                    + BASE_MS
                    + " + id * 1000)"
                    + " OR local_at <> CAST(timestamp_millis("
                    + BASE_MS
                    + " + id * 1000) AS TIMESTAMP_NTZ)"
                    + " OR qty <> id % 1000"
                    + " OR (id % 7 = 0 AND (note IS NULL OR note <> concat('n', CAST(id AS STRING))))"
                    + " OR (id % 7 <> 0 AND note IS NOT NULL)")
            .asLong();
    assertEquals(0, wrong, table + ": rows whose values are not the ones produced");
    if (deleted) {
      assertEquals(
          0,
          spark
              .value(
                  "SELECT count(*) FROM "
                      + ref(table)
                      + " WHERE id < "
                      + PHASE1
                      + " AND id % 10 = 0")
              .asLong(),
          table + ": a deleted row came back");
    }
    if (table.contains("rowtracking") || table.equals("everything")) {
      assertEquals(
          expected,
          spark.value("SELECT count(DISTINCT _metadata.row_id) FROM " + ref(table)).asLong(),
          table + ": every row has its own row id");
    }
    return expected;
  }

  private JsonNode detail(SparkSql spark, String table) {
    return spark.sql("DESCRIBE DETAIL " + ref(table)).get(0);
  }

  private void produce(
      KafkaProducer<byte[], byte[]> producer, List<String> tables, int from, int to) {
    for (String table : tables) {
      for (long id = from; id < to; id++) {
        Struct v =
            new Struct(RECORD)
                .put("id", id)
                .put("region", "r" + (id % 4))
                .put("amount", BigDecimal.valueOf(id, 2))
                .put("at", new java.util.Date(BASE_MS + id * 1000))
                .put("local_at", new java.util.Date(BASE_MS + id * 1000))
                .put("qty", (int) (id % 1000))
                .put("note", id % 7 == 0 ? "n" + id : null);
        producer.send(
            new ProducerRecord<>(
                table,
                (int) (id % PARTITIONS),
                Long.toString(id).getBytes(StandardCharsets.UTF_8),
                json.fromConnectData(table, RECORD, v)));
      }
    }
    producer.flush();
  }

  private void awaitOffsets(
      EmbeddedConnectCluster connect, List<String> tables, long offset, long timeoutMs)
      throws InterruptedException {
    ConnectCluster.awaitTxnVersions(connect, CONNECTOR, dir, tables, PARTITIONS, offset, timeoutMs);
  }
}
