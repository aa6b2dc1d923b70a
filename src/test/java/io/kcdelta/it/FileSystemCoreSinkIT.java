package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core test on a local file:// table with the filesystem log store; and commits by size on the
 * same cluster.
 */
class FileSystemCoreSinkIT extends AbstractCoreSinkIT {
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
      connect.deleteConnector("sized-sink");
    }
  }
}
