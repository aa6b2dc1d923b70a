package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core test on a local file:// table with the filesystem log store; commits by size and routing
 * by field on the same cluster.
 */
class FileSystemCoreSinkIT extends AbstractCoreSinkIT {
  private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

  @TempDir Path dir;

  @Override
  String tablePath() {
    return dir.resolve("orders").toUri().toString();
  }

  @Override
  Map<String, String> storageConfig() {
    return Map.of();
  }

  @Override
  Configuration readerConf() {
    return new Configuration();
  }

  /**
   * A busy topic with flush.size.bytes far below what a flush interval brings: the table commits
   * each time a task holds about that many bytes, long before the interval is over, in commits of
   * about that size.
   */
  @Test
  void aBusyTopicCommitsEachTimeItHoldsFlushSizeBytes() throws Exception {
    String topic = "sized";
    String table = dir.resolve("sized").toUri().toString();
    long size = 256 * 1024;
    connect.kafka().createTopic(topic, 2);
    Map<String, String> c = ConnectCluster.jsonSinkConfig(topic, 1, table, true);
    c.put("flush.interval.ms", "600000");
    c.put("flush.size.bytes", Long.toString(size));
    ConnectCluster.runConnector(connect, "sized-sink", c, 1);
    OrderRecords records = new OrderRecords();
    long produced = 0;
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      // At a steady rate, 10,000 records a second, for 12 s; the interval (10 min) never comes.
      for (int second = 0; second < 12; second++) {
        records.produce(producer, topic, 2, produced, produced + 10_000);
        produced += 10_000;
        Thread.sleep(1_000);
      }
      // What is left below the size waits for the interval: wait until no commit has come for 3 s.
      long deadline = System.currentTimeMillis() + 60_000;
      List<Long> commits = List.of();
      long quietSince = System.currentTimeMillis();
      while (System.currentTimeMillis() < deadline
          && System.currentTimeMillis() - quietSince < 3_000) {
        List<Long> now;
        try {
          now = DeltaTableContents.bytesPerCommit(readerConf(), table);
        } catch (RuntimeException e) {
          now = List.of(); // no table yet
        }
        if (now.size() != commits.size()) {
          commits = now;
          quietSince = System.currentTimeMillis();
        }
        Thread.sleep(250);
      }
      System.out.printf(
          "[core-it size] flush.size.bytes %d: %d commits within the interval, bytes each %s%n",
          size, commits.size(), commits);
      // Smaller commits come first: until a file is finished the task takes the size of its open
      // files in memory, which compression makes several times smaller; and a rebalance (this
      // connector joining the cluster's) commits what a task holds when its partitions close.
      long near = commits.stream().filter(b -> b >= size / 2 && b <= size * 3).count();
      assertTrue(near >= 4, "commits of about flush.size.bytes " + size + ": " + commits);
      assertTrue(
          commits.stream().allMatch(b -> b <= size * 3),
          "no commit waits far beyond flush.size.bytes " + size + ": " + commits);
    } finally {
      ConnectCluster.deleteConnector(connect, "sized-sink");
    }
  }

  /**
   * {@code ${field:tenant}} in the path: 20,000 schemaless records of 5 tenants over 4 partitions,
   * 2 tasks, and every 101st record without a usable tenant. Each table holds exactly its tenant's
   * records, once; its txn version of each partition is the partition's last record of that tenant;
   * each record without a table reaches the dead letter queue (at least once).
   */
  @Test
  void recordsRouteToATablePerValueOfAField() throws Exception {
    String topic = "tenants";
    int partitions = 4;
    int n = 20_000;
    connect.kafka().createTopic(topic, partitions);
    Map<String, String> c =
        ConnectCluster.jsonSinkConfig(topic, 2, dir.toUri() + "tenant-${field:tenant}", false);
    c.put("flush.interval.ms", "2000");
    c.put("errors.tolerance", "all");
    c.put("errors.deadletterqueue.topic.name", "tenants-dlq");
    c.put("errors.deadletterqueue.topic.replication.factor", "1");
    ConnectCluster.runConnector(connect, "routed-sink", c, 2);
    Map<String, Map<Long, Long>> idsByTable = new TreeMap<>(); // table -> id -> offset
    Map<String, Map<Integer, Long>> lastOffsets = new TreeMap<>(); // table -> partition -> offset
    int unroutable = 0;
    Set<Long> unroutableIds = new TreeSet<>();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (long id = 0; id < n; id++) {
        String tenant = id % 101 == 100 ? "\"no/tenant\"" : "\"t" + (id % 5) + "\"";
        byte[] value =
            ("{\"id\":" + id + ",\"tenant\":" + tenant + ",\"amount\":" + id * 3 + "}")
                .getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(topic, (int) (id % partitions), null, value)));
      }
      producer.flush();
      for (long id = 0; id < n; id++) {
        RecordMetadata md = sent.get((int) id).get();
        if (id % 101 == 100) {
          unroutable++;
          unroutableIds.add(id);
          continue;
        }
        // As the connector names it (Path.toUri would end in '/' once the directory exists).
        String table = dir.toUri() + "tenant-t" + (id % 5);
        idsByTable.computeIfAbsent(table, t -> new HashMap<>()).put(id, md.offset());
        lastOffsets
            .computeIfAbsent(table, t -> new TreeMap<>())
            .merge(md.partition(), md.offset(), Math::max);
      }
    }
    try {
      assertEquals(5, idsByTable.size());
      for (Map.Entry<String, Map<Long, Long>> e : idsByTable.entrySet()) {
        DeltaTableContents.awaitRows(readerConf(), e.getKey(), e.getValue().size(), 120_000);
      }
      for (Map.Entry<String, Map<Long, Long>> e : idsByTable.entrySet()) {
        String table = e.getKey();
        DeltaTableContents contents = DeltaTableContents.read(readerConf(), table);
        Map<Long, Integer> expected = new HashMap<>();
        e.getValue().keySet().forEach(id -> expected.put(id, 1));
        assertEquals(expected, contents.idCounts(), table + " holds exactly its tenant's ids");
        Map<String, Long> wanted = new TreeMap<>();
        lastOffsets.get(table).forEach((p, o) -> wanted.put("routed-sink-" + topic + "-" + p, o));
        assertEquals(
            wanted,
            new TreeMap<>(DeltaTableContents.txnVersions(readerConf(), table, wanted.keySet())),
            table + ": per partition, its last record of the tenant");
      }
      // Reports to the dead letter queue are at least once (Connect's own guarantee): a record
      // reported before a rebalance, below the group offset its task could commit (the rows
      // buffered before it were not durable yet), is reported again by the next owner.
      connect.kafka().consume(unroutable, 60_000, "tenants-dlq");
      Set<Long> dead = new TreeSet<>();
      int reports = 0;
      for (ConsumerRecord<byte[], byte[]> r : connect.kafka().consumeAll(60_000, "tenants-dlq")) {
        Matcher m = ID.matcher(new String(r.value(), StandardCharsets.UTF_8));
        assertTrue(m.find(), "a dead letter without an id");
        dead.add(Long.parseLong(m.group(1)));
        reports++;
      }
      System.out.printf(
          "[core-it routed] %d records, %d tables, rows %s; %d without a table, %d reports of them"
              + " in the dead letter queue%n",
          n,
          idsByTable.size(),
          idsByTable.values().stream().map(Map::size).toList(),
          unroutable,
          reports);
      assertEquals(unroutableIds, dead, "each record without a table, and only those, reported");
    } finally {
      ConnectCluster.deleteConnector(connect, "routed-sink");
    }
  }
}
