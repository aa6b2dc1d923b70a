package io.kcdelta.metrics;

import java.util.List;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;

/**
 * Where one assigned Kafka partition stands against the table, tagged {@code
 * topic=<topic>,partition=<n>}: the sink's own lag. The rest of the lag, from what the task
 * received to the log end, is the consumer's {@code records-lag} metric (Connect does not give a
 * sink task its consumer).
 */
public final class PartitionMetrics {
  private final SinkMetrics task;
  private final List<MetricName> gauges;

  // Published by the task thread, read by JMX.
  private volatile long committed = -1;
  private volatile long received = -1;

  public PartitionMetrics(SinkMetrics task, TopicPartition tp) {
    this.task = task;
    gauges =
        task.gauges(
            SinkMetrics.tags("topic", tp.topic(), "partition", Integer.toString(tp.partition())),
            List.of(
                new SinkMetrics.GaugeSpec(
                    "committed-offset",
                    "offset of the partition's last record durable in the table (its txn version);"
                        + " -1 when the table holds none",
                    (config, now) -> committed),
                new SinkMetrics.GaugeSpec(
                    "last-received-offset",
                    "highest offset of the partition the task received since it was assigned"
                        + " (the committed offset before any)",
                    (config, now) -> Math.max(received, committed)),
                new SinkMetrics.GaugeSpec(
                    "uncommitted-records",
                    "records the task received that are not durable in the table yet"
                        + " (last-received-offset minus committed-offset)",
                    (config, now) -> Math.max(0, received - committed))));
  }

  /**
   * Publishes where the partition stands. The committed offset only grows while the partition is
   * assigned: a commit of another member of the group may have published a newer one first.
   */
  public void update(long committed, long received) {
    committedAtLeast(committed);
    this.received = received;
  }

  /** A commit made {@code offset} durable; from any thread. */
  public synchronized void committedAtLeast(long offset) {
    if (offset > committed) {
      committed = offset;
    }
  }

  public void close() {
    task.remove(gauges);
  }
}
