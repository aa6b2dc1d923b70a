package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kcdelta.it.infra.SparkSql;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated partition columns against Spark 4.0.1 + Delta 4.0.1 (a JVM of its own, session time
 * zone UTC): tables Spark creates with generated partition columns of every form the connector
 * computes, filled by the connector on an embedded Connect cluster, where Spark recomputes each
 * generated value from its source for every row; and a table the connector creates from
 * day/hour/truncate transforms, which Spark reads with a filter on the source timestamp and prunes
 * by the generated partition column.
 */
@Tag("heavy")
class GeneratedColumnsSparkIT {
  private static final String CONNECTOR = "generated";
  private static final int PARTITIONS = 4;
  private static final int ROWS = 1_200;
  private static final long BASE_MS = 1_764_000_000_000L;
  private static final String COLUMNS = "id BIGINT, sku STRING, at TIMESTAMP, n BIGINT";

  /** Table → its generated partition columns (name, type, expression), as Spark creates them. */
  private static final Map<String, List<String[]>> SPARK_TABLES = new LinkedHashMap<>();

  static {
    SPARK_TABLES.put(
        "date_substring",
        List.of(
            new String[] {"event_date", "DATE", "CAST(at AS DATE)"},
            new String[] {"sku_prefix", "STRING", "SUBSTRING(sku, 1, 2)"}));
    SPARK_TABLES.put(
        "year_month_day_hour",
        List.of(
            new String[] {"y", "INT", "YEAR(at)"},
            new String[] {"m", "INT", "MONTH(at)"},
            new String[] {"d", "INT", "DAY(at)"},
            new String[] {"h", "INT", "HOUR(at)"}));
    SPARK_TABLES.put(
        "format_pmod",
        List.of(
            new String[] {"at_hour", "STRING", "date_format(at, 'yyyy-MM-dd-HH')"},
            new String[] {"n_floor", "BIGINT", "n - pmod(n, 10)"}));
  }

  /** The connector's own table, from these transforms, and the expressions they become. */
  private static final String CREATED = "created";

  private static final Map<String, String> CREATED_COLUMNS =
      Map.of(
          "event_date", "CAST(at AS DATE)",
          "at_hour", "DATE_FORMAT(at, 'yyyy-MM-dd-HH')",
          "sku_trunc", "SUBSTRING(sku, 1, 2)");

  private static final Schema RECORD =
      SchemaBuilder.struct()
          .name("Event")
          .field("id", Schema.INT64_SCHEMA)
          .field("sku", Schema.STRING_SCHEMA)
          .field("at", Timestamp.builder().optional().build())
          .field("n", Schema.INT64_SCHEMA)
          .build();

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final JsonConverter json = new JsonConverter();

  private String ref(String table) {
    return "delta.`" + dir.resolve(table).toUri() + "`";
  }

  @Test
  void sparkRecomputesEveryGeneratedValueAndPrunesOnTheSourceColumn() throws Exception {
    json.configure(Map.of("schemas.enable", "true"), false);
    List<String> tables = new ArrayList<>(SPARK_TABLES.keySet());
    tables.add(CREATED);
    Map<String, String> matrix = new LinkedHashMap<>();
    try (SparkSql spark = SparkSql.start()) {
      SPARK_TABLES.forEach(
          (table, generated) -> {
            ObjectNode spec = JSON.createObjectNode();
            spec.put("path", dir.resolve(table).toAbsolutePath().toString());
            ArrayNode columns = spec.putArray("columns");
            for (String column : COLUMNS.split(", ")) {
              String[] nameType = column.split(" ");
              columns.addObject().put("name", nameType[0]).put("type", nameType[1]);
            }
            ArrayNode partitions = spec.putArray("partitionedBy");
            for (String[] g : generated) {
              columns
                  .addObject()
                  .put("name", g[0])
                  .put("type", g[1])
                  .put("generatedAlwaysAs", g[2]);
              partitions.add(g[0]);
            }
            spark.createGenerated(spec.toString());
          });

      EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 2);
      try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
        Map<String, String> c =
            ConnectCluster.tablePerTopicConfig(
                connect, tables, PARTITIONS, 2, dir.toUri().toString());
        c.put("delta.table.partition.columns", "event_date=day(at),hour(at),truncate(sku, 2)");
        ConnectCluster.runConnector(connect, CONNECTOR, c, 2);
        produce(producer, tables);
        ConnectCluster.awaitTxnVersions(
            connect, CONNECTOR, dir, tables, PARTITIONS, ROWS / PARTITIONS - 1, 180_000);

        for (Map.Entry<String, List<String[]>> t : SPARK_TABLES.entrySet()) {
          List<String[]> generated = t.getValue();
          checkRows(spark, t.getKey(), generated);
          matrix.put(t.getKey(), generatedList(generated) + ", created by Spark");
        }
        List<String[]> ours = new ArrayList<>();
        for (JsonNode column : spark.sql("DESCRIBE DETAIL " + ref(CREATED))) {
          assertEquals(
              "[\"event_date\",\"at_hour\",\"sku_trunc\"]",
              column.get("partitionColumns").toString());
        }
        CREATED_COLUMNS.forEach((name, sql) -> ours.add(new String[] {name, "", sql}));
        checkRows(spark, CREATED, ours);
        // A filter on the source timestamp becomes a filter on the partitions.
        String plan =
            spark
                .sql(
                    "EXPLAIN SELECT count(*) FROM "
                        + ref(CREATED)
                        + " WHERE at >= timestamp_millis("
                        + BASE_MS
                        + ") AND at < timestamp_millis("
                        + (BASE_MS + 3_600_000L)
                        + ")")
                .get(0)
                .get("plan")
                .asText();
        assertTrue(
            plan.matches("(?s).*PartitionFilters: \\[[^\\]]*event_date.*"),
            "no partition filter on event_date in:\n" + plan);
        long inHour =
            spark
                .value(
                    "SELECT count(*) FROM "
                        + ref(CREATED)
                        + " WHERE at >= timestamp_millis("
                        + BASE_MS
                        + ") AND at < timestamp_millis("
                        + (BASE_MS + 3_600_000L)
                        + ")")
                .asLong();
        assertEquals(expectedInFirstHour(), inHour);
        matrix.put(CREATED, generatedList(ours) + ", created by the connector; pruned: OK");
      } finally {
        connect.stop();
      }
    } finally {
      System.out.println("Generated columns (table: columns, rows recomputed by Spark):");
      matrix.forEach((t, r) -> System.out.println("  " + t + ": " + r + ": " + ROWS + " rows OK"));
    }
  }

  private static String generatedList(List<String[]> generated) {
    List<String> out = new ArrayList<>();
    for (String[] g : generated) {
      out.add(g[0] + " = " + g[2]);
    }
    return out.toString();
  }

  /** Every id once, and every generated value what Spark computes from its source. */
  private void checkRows(SparkSql spark, String table, List<String[]> generated) {
    JsonNode counts =
        spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS ids FROM " + ref(table)).get(0);
    assertEquals(ROWS, counts.get("n").asLong(), table + ": " + counts);
    assertEquals(ROWS, counts.get("ids").asLong(), table + ": every id once");
    List<String> differ = new ArrayList<>();
    for (String[] g : generated) {
      differ.add("NOT (" + g[0] + " <=> " + g[2] + ")");
    }
    long wrong =
        spark
            .value("SELECT count(*) FROM " + ref(table) + " WHERE " + String.join(" OR ", differ))
            .asLong();
    assertEquals(0, wrong, table + ": rows whose generated values are not Spark's");
    long nulls = spark.value("SELECT count(*) FROM " + ref(table) + " WHERE at IS NULL").asLong();
    assertEquals(ROWS / 13 + 1, nulls, table + ": rows without a timestamp");
  }

  /** Rows whose timestamp falls in [BASE_MS, BASE_MS + 1 h). */
  private static long expectedInFirstHour() {
    long n = 0;
    for (long id = 0; id < ROWS; id++) {
      long at = timeOf(id);
      if (id % 13 != 0 && at >= BASE_MS && at < BASE_MS + 3_600_000L) {
        n++;
      }
    }
    return n;
  }

  /** Spread over about three days, across midnights and hours, some before BASE_MS. */
  private static long timeOf(long id) {
    return BASE_MS - 7_200_000L + id * 211_111L;
  }

  private void produce(KafkaProducer<byte[], byte[]> producer, List<String> tables) {
    for (String table : tables) {
      for (long id = 0; id < ROWS; id++) {
        Struct v =
            new Struct(RECORD)
                .put("id", id)
                .put("sku", (char) ('a' + id % 5) + "" + (id % 3) + "-" + id)
                .put("at", id % 13 == 0 ? null : new java.util.Date(timeOf(id)))
                .put("n", id % 37 - 18);
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
}
