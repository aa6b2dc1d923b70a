package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.kcdelta.it.infra.SparkSql;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upsert mode end to end: a Debezium-shaped change stream made by the test (envelopes with op c, u,
 * d and r, tombstones after deletes, keys changed many times, deleted and inserted again, several
 * times inside one commit), 4 partitions by key, 2 workers of which one leaves and another joins
 * mid-stream, in 12 rounds (many commits, each marking rows of earlier ones), compaction on and
 * aggressive (it rewrites the files upserts mark, and races them). Spark 4 + Delta 4 then reads
 * exactly the model's final state: every key, every value.
 */
@Tag("heavy")
class UpsertSparkIT {
  private static final String CONNECTOR = "upsert";
  private static final String TOPIC = "cdc";
  private static final int PARTITIONS = 4;
  private static final int KEYS = 3_000;
  private static final int CHANGES = 24_000;
  private static final int ROUNDS = 12;

  private static final Schema KEY =
      SchemaBuilder.struct().name("Key").field("id", Schema.INT64_SCHEMA).build();
  private static final Schema ROW =
      SchemaBuilder.struct()
          .name("Value")
          .optional()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("qty", Schema.INT32_SCHEMA)
          .build();
  private static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("Envelope")
          .field("before", ROW)
          .field("after", ROW)
          .field("op", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  @TempDir Path dir;

  private final JsonConverter keys = new JsonConverter();
  private final JsonConverter values = new JsonConverter();

  /** The source database: id → its row (name, qty). */
  private final Map<Long, Struct> model = new TreeMap<>();

  private final long[] produced = new long[PARTITIONS];
  private final Random random = new Random(33);
  private int deletes;
  private int reinserts;
  private final Map<Long, Boolean> deletedOnce = new HashMap<>();

  @Test
  void aDebeziumStreamMirrorsItsSourceExactlyAsSparkReadsIt() throws Exception {
    keys.configure(Map.of("schemas.enable", "true"), true);
    values.configure(Map.of("schemas.enable", "true"), false);
    String table = dir.resolve(TOPIC).toUri().toString();
    EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 2);
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      Map<String, String> c =
          ConnectCluster.tablePerTopicConfig(
              connect, List.of(TOPIC), PARTITIONS, 2, dir.toUri().toString());
      c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
      c.put("key.converter.schemas.enable", "true");
      c.put("delta.write.mode", "upsert");
      c.put("compaction.enabled", "true");
      c.put("compaction.interval.ms", "1000");
      c.put("compaction.min.input.files", "2");
      ConnectCluster.runConnector(connect, CONNECTOR, c, 2);

      // Rounds, each of them committed before the next (odd ones) or not (even): many commits
      // that mark rows of earlier ones, and compaction between them.
      for (int round = 0; round < ROUNDS; round++) {
        produce(producer, CHANGES / ROUNDS);
        if (round == ROUNDS / 3) {
          connect.removeWorker(connect.workers().iterator().next());
        } else if (round == 2 * ROUNDS / 3) {
          connect.addWorker();
        }
        if (round % 2 == 1) {
          awaitAll(table, 180_000);
        }
      }
      awaitAll(table, 240_000);
      ConnectCluster.deleteConnector(connect, CONNECTOR);
    } finally {
      connect.stop();
    }

    try (SparkSql spark = SparkSql.start()) {
      String ref = "delta.`" + table + "`";
      JsonNode counts =
          spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS ids FROM " + ref).get(0);
      List<JsonNode> rows = spark.sql("SELECT id, name, qty FROM " + ref);
      Map<Long, String> read = new TreeMap<>();
      rows.forEach(
          r -> read.put(r.get("id").asLong(), r.get("name").asText() + "/" + r.get("qty").asInt()));
      Map<Long, String> expected = new TreeMap<>();
      model.forEach(
          (id, row) -> expected.put(id, row.getString("name") + "/" + row.getInt32("qty")));
      int mismatches = 0;
      for (Map.Entry<Long, String> e : expected.entrySet()) {
        mismatches += e.getValue().equals(read.get(e.getKey())) ? 0 : 1;
      }
      for (Long id : read.keySet()) {
        mismatches += expected.containsKey(id) ? 0 : 1;
      }
      JsonNode detail = spark.sql("DESCRIBE DETAIL " + ref).get(0);
      System.out.printf(
          "UpsertSparkIT: %d keys, %d changes (%d deletes, %d inserts after a delete) -> Spark"
              + " reads %d rows (%d ids), model %d rows, mismatches %d; table: %s files, features"
              + " %s%n",
          KEYS,
          CHANGES,
          deletes,
          reinserts,
          counts.get("n").asLong(),
          counts.get("ids").asLong(),
          model.size(),
          mismatches,
          detail.get("numFiles"),
          detail.get("tableFeatures"));
      assertEquals(model.size(), counts.get("n").asLong(), "rows: one per live key");
      assertEquals(model.size(), counts.get("ids").asLong(), "each key once");
      assertEquals(0, mismatches, "every key's row is its last state");
      assertTrue(detail.get("tableFeatures").toString().contains("deletionVectors"));
    }
  }

  /** Produces changes of random keys: inserts, updates, deletes (and their tombstones). */
  private void produce(KafkaProducer<byte[], byte[]> producer, int n) {
    for (int i = 0; i < n; i++) {
      long id = random.nextInt(KEYS);
      Struct before = model.get(id);
      Struct after = null;
      String op;
      if (before == null) {
        op = random.nextInt(10) == 0 ? "r" : "c";
        after = row(id);
        reinserts += deletedOnce.containsKey(id) ? 1 : 0;
      } else if (random.nextInt(100) < 80) {
        op = "u";
        after = row(id);
      } else {
        op = "d";
        deletes++;
        deletedOnce.put(id, true);
      }
      Struct envelope =
          new Struct(ENVELOPE)
              .put("before", before)
              .put("after", after)
              .put("op", op)
              .put("ts_ms", System.currentTimeMillis());
      send(producer, id, values.fromConnectData(TOPIC, ENVELOPE, envelope));
      if (after == null) {
        model.remove(id);
        if (random.nextBoolean()) {
          send(producer, id, null); // Debezium's tombstone after a delete
        }
      } else {
        model.put(id, after);
      }
    }
    producer.flush();
  }

  private void send(KafkaProducer<byte[], byte[]> producer, long id, byte[] value) {
    int partition = (int) (id % PARTITIONS);
    producer.send(
        new ProducerRecord<>(
            TOPIC,
            partition,
            keys.fromConnectData(TOPIC, KEY, new Struct(KEY).put("id", id)),
            value));
    produced[partition]++;
  }

  private Struct row(long id) {
    return new Struct(ROW)
        .put("id", id)
        .put("name", "n" + id + "-" + random.nextInt(1_000_000))
        .put("qty", random.nextInt(1000));
  }

  /** Waits until the table holds every record produced so far (its txn versions). */
  private void awaitAll(String table, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Configuration conf = new Configuration();
    List<String> appIds = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      appIds.add(CONNECTOR + "-" + TOPIC + "-" + p);
    }
    Map<String, Long> last = Map.of();
    while (System.currentTimeMillis() < deadline) {
      try {
        last = DeltaTables.txnVersions(conf, table, appIds);
        boolean all = true;
        for (int p = 0; p < PARTITIONS; p++) {
          all &= last.get(appIds.get(p)) == produced[p] - 1;
        }
        if (all) {
          return;
        }
      } catch (RuntimeException e) {
        // not created yet
      }
      Thread.sleep(500);
    }
    throw new AssertionError(
        "txn versions " + last + ", produced per partition " + java.util.Arrays.toString(produced));
  }
}
