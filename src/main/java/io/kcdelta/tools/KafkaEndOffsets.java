package io.kcdelta.tools;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** The topics of a Kafka cluster and the end offsets of some of their partitions. */
final class KafkaEndOffsets implements AutoCloseable {
  private static final long TIMEOUT_S = 30;

  private final Admin admin;

  KafkaEndOffsets(String bootstrapServers, Map<String, String> clientSettings) {
    Properties props = new Properties();
    props.putAll(clientSettings);
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "delta-sink-status");
    admin = Admin.create(props);
  }

  Set<String> topics() throws Exception {
    return get(admin.listTopics(new ListTopicsOptions().listInternal(false)).names());
  }

  /** The offset the next record of each partition will get; absent for unknown partitions. */
  Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) throws Exception {
    Set<String> known = topics();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.stream()
        .filter(tp -> known.contains(tp.topic()))
        .forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    Map<TopicPartition, Long> ends = new HashMap<>();
    if (latest.isEmpty()) {
      return ends;
    }
    get(admin.listOffsets(latest).all()).forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) throws Exception {
    try {
      return future.get(TIMEOUT_S, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      throw new TimeoutException("Kafka did not answer within " + TIMEOUT_S + " s");
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}
