package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.kcdelta.it.infra.SparkSql;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
 * Upsert mode end to end, in the three shapes a change stream comes in, a topic and table each:
 * Debezium's envelope ({@code op} c, r, u, d and tombstones after deletes), its flattened form
 * ({@code __deleted}) and plain rows with tombstones. Changes of random keys (updated many times,
 * deleted, inserted again, several times inside one commit), 6 partitions by key, 2 workers of
 * which one leaves and another joins mid-stream, in rounds (many commits, each marking rows of
 * earlier ones), compaction on and aggressive; and a Spark DELETE of keys the stream no longer
 * changes while it commits to the same files. Spark 4 + Delta 4 and Delta Kernel then read exactly
 * each source's final state: every key, every value.
 */
@Tag("heavy")
class UpsertSparkIT {
  private static final String CONNECTOR = "upsert";
  private static final List<String> SHAPES = List.of("envelope", "flattened", "plain");
  private static final int PARTITIONS = 6;
  private static final int KEYS = 4_000;
  private static final int CHANGES = 16_000;
  private static final int ROUNDS = 10;

  /** Keys below this are changed in the first half only: Spark deletes some of them mid-stream. */
  private static final int SPARK_KEYS = 400;

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
  private static final Schema FLATTENED =
      SchemaBuilder.struct()
          .name("Flattened")
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("qty", Schema.INT32_SCHEMA)
          .field("__deleted", Schema.STRING_SCHEMA)
          .build();

  @TempDir Path dir;

  private final JsonConverter keys = new JsonConverter();
  private final JsonConverter values = new JsonConverter();
  private final Random random = new Random(33);

  /** Per shape, the source database: id → its row. */
  private final Map<String, Map<Long, Struct>> models = new HashMap<>();

  private final Map<String, long[]> produced = new HashMap<>();
  private int deletes;
  private int reinserts;
  private final Set<String> deletedOnce = new HashSet<>();

  @Test
  void changeStreamsInThreeShapesMirrorTheirSourcesExactlyAsSparkAndKernelReadThem()
      throws Exception {
    keys.configure(Map.of("schemas.enable", "true"), true);
    values.configure(Map.of("schemas.enable", "true"), false);
    SHAPES.forEach(
        s -> {
          models.put(s, new TreeMap<>());
          produced.put(s, new long[PARTITIONS]);
        });
    try (SparkSql spark = SparkSql.start()) {
      EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 2);
      try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
        Map<String, String> c =
            ConnectCluster.tablePerTopicConfig(
                connect, SHAPES, PARTITIONS, 2, dir.toUri().toString());
        c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("key.converter.schemas.enable", "true");
        c.put("delta.write.mode", "upsert");
        c.put("compaction.enabled", "true");
        c.put("compaction.interval.ms", "1000");
        c.put("compaction.min.input.files", "2");
        ConnectCluster.runConnector(connect, CONNECTOR, c, 2);

        for (int round = 0; round < ROUNDS; round++) {
          boolean firstHalf = round < ROUNDS / 2;
          produce(producer, CHANGES / ROUNDS, firstHalf);
          if (round == ROUNDS / 3) {
            connect.removeWorker(connect.workers().iterator().next());
          } else if (round == 2 * ROUNDS / 3) {
            connect.addWorker();
          }
          if (round == ROUNDS / 2 - 1) {
            awaitAll(180_000);
          } else if (round == ROUNDS / 2) {
            // While this round commits: Spark deletes keys no later change touches, in files the
            // upserts mark too.
            spark.sqlRetryingConflicts(
                "DELETE FROM " + ref("envelope") + " WHERE id < " + SPARK_KEYS + " AND id % 2 = 0",
                10);
            models.get("envelope").keySet().removeIf(id -> id < SPARK_KEYS && id % 2 == 0);
          }
        }
        awaitAll(240_000);
        ConnectCluster.deleteConnector(connect, CONNECTOR);
      } finally {
        connect.stop();
      }

      for (String shape : SHAPES) {
        Map<Long, String> expected = new TreeMap<>();
        models.get(shape).forEach((id, row) -> expected.put(id, state(row)));
        JsonNode counts =
            spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS ids FROM " + ref(shape)).get(0);
        Map<Long, String> bySpark = new TreeMap<>();
        spark
            .sql("SELECT id, name, qty FROM " + ref(shape))
            .forEach(
                r ->
                    bySpark.put(
                        r.get("id").asLong(), r.get("name").asText() + "/" + r.get("qty").asInt()));
        Map<Long, String> byKernel = new TreeMap<>();
        List<Map<String, Object>> kernelRows = DeltaTables.rows(new Configuration(), path(shape));
        kernelRows.forEach(
            r -> byKernel.put((Long) r.get("id"), r.get("name") + "/" + r.get("qty")));
        JsonNode detail = spark.sql("DESCRIBE DETAIL " + ref(shape)).get(0);
        System.out.printf(
            "UpsertSparkIT %s: %d keys, %d changes -> Spark reads %d rows (%d ids), Kernel %d"
                + " rows, model %d rows; mismatches Spark %d, Kernel %d; %s files%n",
            shape,
            KEYS,
            CHANGES,
            counts.get("n").asLong(),
            counts.get("ids").asLong(),
            kernelRows.size(),
            expected.size(),
            mismatches(expected, bySpark),
            mismatches(expected, byKernel),
            detail.get("numFiles"));
        assertEquals(expected.size(), counts.get("n").asLong(), shape + ": one row per live key");
        assertEquals(expected.size(), counts.get("ids").asLong(), shape + ": each key once");
        assertEquals(0, mismatches(expected, bySpark), shape + ": Spark reads the last states");
        assertEquals(expected.size(), kernelRows.size(), shape + ": Kernel's rows");
        assertEquals(0, mismatches(expected, byKernel), shape + ": Kernel reads the last states");
        assertTrue(detail.get("tableFeatures").toString().contains("deletionVectors"));
      }
      System.out.printf(
          "UpsertSparkIT: %d deletes, %d inserts after a delete, %d keys deleted by Spark mid-stream%n",
          deletes, reinserts, SPARK_KEYS / 2);
    }
  }

  private static int mismatches(Map<Long, String> expected, Map<Long, String> read) {
    int n = 0;
    for (Map.Entry<Long, String> e : expected.entrySet()) {
      n += e.getValue().equals(read.get(e.getKey())) ? 0 : 1;
    }
    for (Long id : read.keySet()) {
      n += expected.containsKey(id) ? 0 : 1;
    }
    return n;
  }

  private String path(String shape) {
    return dir.resolve(shape).toUri().toString();
  }

  private String ref(String shape) {
    return "delta.`" + path(shape) + "`";
  }

  private static String state(Struct row) {
    return row.getString("name") + "/" + row.getInt32("qty");
  }

  /**
   * Produces changes of random keys to each shape's topic: inserts, updates, deletes (and
   * tombstones). Only the first half changes the keys Spark deletes from.
   */
  private void produce(KafkaProducer<byte[], byte[]> producer, int n, boolean firstHalf) {
    for (String shape : SHAPES) {
      Map<Long, Struct> model = models.get(shape);
      for (int i = 0; i < n; i++) {
        long id = firstHalf ? random.nextInt(KEYS) : SPARK_KEYS + random.nextInt(KEYS - SPARK_KEYS);
        Struct before = model.get(id);
        Struct after = null;
        String op;
        if (before == null) {
          op = random.nextInt(10) == 0 ? "r" : "c";
          after = row(id);
          reinserts += deletedOnce.contains(shape + id) ? 1 : 0;
        } else if (random.nextInt(100) < 80) {
          op = "u";
          after = row(id);
        } else {
          op = "d";
          deletes++;
          deletedOnce.add(shape + id);
        }
        send(producer, shape, id, value(shape, op, before, after));
        if (after == null) {
          model.remove(id);
          if (random.nextBoolean()) {
            send(producer, shape, id, null); // a tombstone after the delete, as Debezium sends
          }
        } else {
          model.put(id, after);
        }
      }
    }
    producer.flush();
  }

  /** The change in the shape's form (null: the plain shape's delete, a tombstone alone). */
  private byte[] value(String shape, String op, Struct before, Struct after) {
    switch (shape) {
      case "envelope" -> {
        Struct envelope =
            new Struct(ENVELOPE)
                .put("before", before)
                .put("after", after)
                .put("op", op)
                .put("ts_ms", System.currentTimeMillis());
        return values.fromConnectData(shape, ENVELOPE, envelope);
      }
      case "flattened" -> {
        Struct state = after != null ? after : before;
        Struct flat =
            new Struct(FLATTENED)
                .put("id", state.getInt64("id"))
                .put("name", state.getString("name"))
                .put("qty", state.getInt32("qty"))
                .put("__deleted", String.valueOf(after == null));
        return values.fromConnectData(shape, FLATTENED, flat);
      }
      default -> {
        return after == null ? null : values.fromConnectData(shape, ROW, after);
      }
    }
  }

  private void send(KafkaProducer<byte[], byte[]> producer, String topic, long id, byte[] value) {
    int partition = (int) (id % PARTITIONS);
    producer.send(
        new ProducerRecord<>(
            topic,
            partition,
            keys.fromConnectData(topic, KEY, new Struct(KEY).put("id", id)),
            value));
    produced.get(topic)[partition]++;
  }

  private Struct row(long id) {
    return new Struct(ROW)
        .put("id", id)
        .put("name", "n" + id + "-" + random.nextInt(1_000_000))
        .put("qty", random.nextInt(1000));
  }

  /** Waits until every table holds every record produced so far (its txn versions). */
  private void awaitAll(long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Configuration conf = new Configuration();
    Map<String, Long> last = new TreeMap<>();
    while (System.currentTimeMillis() < deadline) {
      boolean all = true;
      for (String shape : SHAPES) {
        List<String> appIds = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
          appIds.add(CONNECTOR + "-" + shape + "-" + p);
        }
        try {
          Map<String, Long> v = DeltaTables.txnVersions(conf, path(shape), appIds);
          last.putAll(v);
          for (int p = 0; p < PARTITIONS; p++) {
            all &= v.get(appIds.get(p)) == produced.get(shape)[p] - 1;
          }
        } catch (RuntimeException e) {
          all = false; // not created yet
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(500);
    }
    Map<String, String> wanted = new TreeMap<>();
    produced.forEach((s, counts) -> wanted.put(s, Arrays.toString(counts)));
    throw new AssertionError("txn versions " + last + ", records per partition " + wanted);
  }
}
