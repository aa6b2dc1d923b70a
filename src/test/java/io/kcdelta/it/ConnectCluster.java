package io.kcdelta.it;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
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

  public static KafkaProducer<byte[], byte[]> producer(EmbeddedConnectCluster connect) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return connect.kafka().createProducer(props);
  }
}
