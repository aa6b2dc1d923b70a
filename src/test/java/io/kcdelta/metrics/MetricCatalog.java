package io.kcdelta.metrics;

import io.kcdelta.metrics.SinkMetrics.ErrantCause;
import io.kcdelta.metrics.SinkMetrics.Service;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Every metric the task publishes, as {@link SinkMetrics} creates them: the task's totals, one
 * table, one partition, every errant cause and every retried service. README's metric reference and
 * the monitoring files are checked against it.
 */
public final class MetricCatalog {
  /** One published metric: the tags after connector and task (their keys), name, description. */
  public record Entry(List<String> tagKeys, String name, String description) {}

  private MetricCatalog() {}

  public static List<Entry> all() {
    try (RecordingRegistry registry = new RecordingRegistry()) {
      SinkMetrics task = SinkMetrics.of(registry);
      task.forTable("file:///warehouse/t");
      task.forPartition(new TopicPartition("orders", 0));
      for (ErrantCause cause : ErrantCause.values()) {
        task.recordErrant(cause);
      }
      for (Service service : Service.values()) {
        task.recordRetry(service);
        task.recordRecovered(service, 1);
      }
      return registry.created.stream().distinct().toList();
    }
  }

  /** The tag values the catalog's metrics are tagged with, by key. */
  public static List<String> tagValues(String key) {
    return switch (key) {
      case "cause" -> List.of(ErrantCause.values()).stream().map(c -> c.tag).toList();
      case "service" -> List.of(Service.values()).stream().map(s -> s.tag).toList();
      default -> List.of();
    };
  }
}
