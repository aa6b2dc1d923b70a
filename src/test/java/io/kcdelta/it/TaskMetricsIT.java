package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.schema.JsonParser;
import io.kcdelta.tools.DeltaSinkStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task metrics as an operator reads them: MBeans of a connector on embedded Connect (plugin
 * metrics, Connect 4.3), read over the platform MBeanServer while records flow and after they are
 * committed. The table's staleness stays below two flush intervals under a steady load; afterwards
 * the committed rows equal the records produced and no partition lags.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskMetricsIT {
  private static final String TOPIC = "metered";
  private static final String CONNECTOR = "metered-sink";
  private static final int PARTITIONS = 4;
  private static final long FLUSH_MS = 4_000;
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  @TempDir Path dir;
  private EmbeddedConnectCluster connect;

  @BeforeAll
  void start() {
    connect = ConnectCluster.start(getClass().getSimpleName(), 2);
  }

  @AfterAll
  void stop() {
    if (connect != null) {
      connect.stop();
    }
  }

  @Test
  void freshnessLagAndCommittedRowsAsJmxShowsThem() throws Exception {
    String table = dir.resolve("metered").toUri().toString();
    connect.kafka().createTopic(TOPIC, PARTITIONS);
    Map<String, String> config = ConnectCluster.jsonSinkConfig(TOPIC, PARTITIONS, table, true);
    config.put("flush.interval.ms", Long.toString(FLUSH_MS));
    ConnectCluster.runConnector(connect, CONNECTOR, config, PARTITIONS);

    OrderRecords records = new OrderRecords();
    int produced = 0;
    double stalest = Double.NaN;
    int samples = 0;
    long start = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      // A steady load of ~1,000 records/s for 20 s; from the third interval on, sample how stale
      // each task's table is.
      while (System.currentTimeMillis() - start < 20_000) {
        records.produce(producer, TOPIC, PARTITIONS, produced, produced + 250);
        produced += 250;
        if (System.currentTimeMillis() - start > 3 * FLUSH_MS) {
          for (double age : values("table", "committed-record-age-ms").values()) {
            if (!Double.isNaN(age)) {
              stalest = Double.isNaN(stalest) ? age : Math.max(stalest, age);
              samples++;
            }
          }
        }
        Thread.sleep(250);
      }
    }
    System.out.printf(
        "[metrics-it] %d records in %.1f s; stalest table seen %.0f ms in %d samples%n",
        produced, (System.currentTimeMillis() - start) / 1e3, stalest, samples);
    assertTrue(samples > 20, "freshness was sampled while the load ran: " + samples);
    assertTrue(
        stalest < 2 * FLUSH_MS,
        "the table stayed fresher than two flush intervals under load: " + stalest + " ms");

    Map<TopicPartition, Long> last = records.lastOffsets();
    awaitMetrics(produced, last, 120_000);

    // Every metric of the connector's MBeans, for the record.
    for (ObjectName bean : beans(null)) {
      Map<String, Object> attrs = new TreeMap<>();
      for (MBeanAttributeInfo a : JMX.getMBeanInfo(bean).getAttributes()) {
        attrs.put(a.getName(), JMX.getAttribute(bean, a.getName()));
      }
      System.out.println("[metrics-it] " + bean + " " + attrs);
    }
    Map<String, Long> txns =
        DeltaTableContents.txnVersions(
            new Configuration(),
            table,
            new TreeSet<>(
                last.keySet().stream()
                    .map(tp -> CONNECTOR + "-" + tp.topic() + "-" + tp.partition())
                    .toList()));
    last.forEach(
        (tp, offset) ->
            assertEquals(offset, txns.get(CONNECTOR + "-" + tp.topic() + "-" + tp.partition())));

    // The status command says the same, with Kafka's end offsets: nothing left to commit.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        DeltaSinkStatus.run(
            new String[] {
              "--json", "--bootstrap-servers", connect.kafka().bootstrapServers(), table
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err);
    assertEquals(0, code);
    String json = out.toString(StandardCharsets.UTF_8);
    System.out.println("[metrics-it] delta-sink-status --json: " + json);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> offsets =
        (List<Map<String, Object>>) ((Map<String, Object>) JsonParser.parse(json)).get("offsets");
    assertEquals(PARTITIONS, offsets.size());
    for (Map<String, Object> o : offsets) {
      TopicPartition tp =
          new TopicPartition((String) o.get("topic"), ((Long) o.get("partition")).intValue());
      assertEquals(CONNECTOR, o.get("prefix"));
      assertEquals(last.get(tp), o.get("txnVersion"));
      assertEquals(last.get(tp) + 1, o.get("endOffset"));
      assertEquals(0L, o.get("lag"));
    }
  }

  /**
   * Waits until the table-level committed rows of all tasks add up to what was produced and every
   * partition's metrics show its last offset committed, nothing uncommitted.
   */
  private void awaitMetrics(int produced, Map<TopicPartition, Long> last, long timeoutMs)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    String state = "";
    while (System.currentTimeMillis() < deadline) {
      double rows =
          values("table", "committed-rows-total").values().stream().mapToDouble(d -> d).sum();
      Map<ObjectName, Double> committed = values("partition", "committed-offset");
      Map<ObjectName, Double> uncommitted = values("partition", "uncommitted-records");
      Map<String, Long> byPartition = new TreeMap<>();
      committed.forEach(
          (bean, v) ->
              byPartition.put(
                  bean.getKeyProperty("topic") + "-" + bean.getKeyProperty("partition"),
                  v.longValue()));
      Map<String, Long> want = new TreeMap<>();
      last.forEach((tp, o) -> want.put(tp.topic() + "-" + tp.partition(), o));
      boolean lagFree = uncommitted.values().stream().allMatch(v -> v == 0);
      state =
          "rows "
              + rows
              + " of "
              + produced
              + ", committed offsets "
              + byPartition
              + " want "
              + want
              + ", uncommitted "
              + uncommitted.values();
      if (rows == produced && byPartition.equals(want) && lagFree) {
        System.out.println("[metrics-it] caught up: " + state);
        return;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("the metrics did not catch up: " + state);
  }

  /** The connector's MBeans with the given extra tag (null: all of them). */
  private static Set<ObjectName> beans(String tag) throws Exception {
    Set<ObjectName> all =
        JMX.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + CONNECTOR + ",*"), null);
    if (tag == null) {
      return new TreeSet<>(all);
    }
    Set<ObjectName> tagged = new TreeSet<>();
    for (ObjectName n : all) {
      if (n.getKeyProperty(tag) != null) {
        tagged.add(n);
      }
    }
    return tagged;
  }

  /** An attribute of every MBean with the tag, by MBean. */
  private static Map<ObjectName, Double> values(String tag, String attribute) throws Exception {
    Map<ObjectName, Double> values = new TreeMap<>();
    for (ObjectName n : beans(tag)) {
      values.put(n, ((Number) JMX.getAttribute(n, attribute)).doubleValue());
    }
    return values;
  }
}
