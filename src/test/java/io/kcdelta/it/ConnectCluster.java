package io.kcdelta.it;

import io.kcdelta.testutil.DeltaTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/** An embedded Kafka (KRaft) + Connect cluster tuned for fast test start-up (see LAB.md). */
public final class ConnectCluster {
  private ConnectCluster() {}

  public static EmbeddedConnectCluster start(String name, int workers) {
    Map<String, String> workerProps = new HashMap<>();
    workerProps.put("plugin.discovery", "service_load");
    workerProps.put("offset.flush.interval.ms", "2000");
    workerProps.put("scheduled.rebalance.max.delay.ms", "5000");
    workerProps.put("offset.storage.partitions", "1");
    workerProps.put("status.storage.partitions", "1");
    Properties brokerProps = new Properties();
    brokerProps.put("offsets.topic.num.partitions", "1");
    brokerProps.put("group.initial.rebalance.delay.ms", "0");
    brokerProps.put("auto.create.topics.enable", "false");
    EmbeddedConnectCluster connect =
        (EmbeddedConnectCluster)
            new EmbeddedConnectCluster.Builder()
                .name(name)
                .numWorkers(workers)
                .numBrokers(1)
                .workerProps(workerProps)
                .brokerProps(brokerProps)
                .build();
    connect.start();
    return connect;
  }

  /** A sink connector's settings: one table, string keys; the caller adds the rest. */
  public static Map<String, String> sinkConfig(String topic, int tasks, String tablePath) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.kcdelta.DeltaSinkConnector");
    c.put("tasks.max", String.valueOf(tasks));
    c.put("topics", topic);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("delta.table.path", tablePath);
    return c;
  }

  /**
   * Creates a topic of {@code partitions} per table, and returns the config of a JSON sink (schema
   * envelope) writing each to its table under {@code tablesUri} through the file-system log store,
   * committing every 2 s.
   */
  public static Map<String, String> tablePerTopicConfig(
      EmbeddedConnectCluster connect,
      List<String> tables,
      int partitions,
      int tasks,
      String tablesUri) {
    for (String table : tables) {
      connect.kafka().createTopic(table, partitions);
    }
    Map<String, String> c =
        jsonSinkConfig(String.join(",", tables), tasks, tablesUri + "${topic}", true);
    c.put("flush.interval.ms", "2000");
    c.put("delta.log.store", "filesystem");
    return c;
  }

  /** {@link #sinkConfig} with JSON values, in the schema envelope or plain. */
  public static Map<String, String> jsonSinkConfig(
      String topic, int tasks, String tablePath, boolean schemas) {
    Map<String, String> c = sinkConfig(topic, tasks, tablePath);
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", String.valueOf(schemas));
    return c;
  }

  /** Creates (or reconfigures) the connector and waits until exactly {@code tasks} tasks run. */
  public static void runConnector(
      EmbeddedConnectCluster connect, String name, Map<String, String> config, int tasks)
      throws InterruptedException {
    connect.configureConnector(name, config);
    connect
        .assertions()
        .assertConnectorAndExactlyNumTasksAreRunning(
            name, tasks, name + " did not run " + tasks + " tasks");
  }

  /**
   * Deletes the connector and waits until it is gone with its tasks: their close() may still commit
   * what they hold, which must not race a test's clean-up of the table directory.
   */
  public static void deleteConnector(EmbeddedConnectCluster connect, String name)
      throws InterruptedException {
    connect.deleteConnector(name);
    connect.assertions().assertConnectorDoesNotExist(name, name + " was not deleted");
  }

  /**
   * Waits until every table holds, as the txn version of each of its topic's partitions (read by
   * Kernel), at least {@code offset}: the table is named as its topic, under {@code root}.
   */
  public static void awaitTxnVersions(
      EmbeddedConnectCluster connect,
      String connector,
      java.nio.file.Path root,
      List<String> tables,
      int partitions,
      long offset,
      long timeoutMs)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Map<String, Long> last = new TreeMap<>();
    Configuration conf = new Configuration();
    while (System.currentTimeMillis() < deadline) {
      boolean all = true;
      for (String table : tables) {
        List<String> appIds = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
          appIds.add(connector + "-" + table + "-" + p);
        }
        try {
          Map<String, Long> v =
              DeltaTables.txnVersions(conf, root.resolve(table).toUri().toString(), appIds);
          last.putAll(v);
          all &= v.values().stream().allMatch(x -> x >= offset);
        } catch (RuntimeException e) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(
        "txn versions after "
            + timeoutMs
            + " ms: "
            + last
            + ", wanted "
            + offset
            + "; tasks: "
            + connect.connectorStatus(connector).tasks().stream()
                .map(t -> t.id() + " " + t.state() + " " + t.trace())
                .toList());
  }

  public static KafkaProducer<byte[], byte[]> producer(EmbeddedConnectCluster connect) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return connect.kafka().createProducer(props);
  }
}
