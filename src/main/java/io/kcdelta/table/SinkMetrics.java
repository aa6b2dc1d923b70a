package io.kcdelta.table;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;

/**
 * The task's operational metrics. On every Connect version they appear in JMX as {@code
 * kafka.connect:type=plugins,connector=<name>,task=<id>} (see {@link MetricRegistry}).
 */
public final class SinkMetrics {
  private final Sensor accepted;
  private final Sensor skipped;
  private final Sensor errant;
  private final Sensor commits;
  private final Sensor commitLatency;
  private final Sensor committedRows;
  private final Sensor committedBytes;
  private final Sensor fenced;

  private SinkMetrics(MetricRegistry metrics) {
    accepted = counter(metrics, "records-written", "rows buffered for the table");
    skipped = counter(metrics, "records-skipped", "redelivered records and ignored tombstones");
    errant = counter(metrics, "records-errant", "records sent to the errant record reporter");
    commits = counter(metrics, "commits", "Delta commits made");
    committedRows = counter(metrics, "committed-rows", "rows made durable in the Delta log");
    committedBytes = counter(metrics, "committed-bytes", "bytes of Parquet made durable");
    fenced =
        counter(
            metrics,
            "commits-fenced",
            "batches refused because another writer owned the partitions");
    commitLatency = metrics == null ? null : metrics.sensor("commit-latency");
    if (commitLatency != null) {
      commitLatency.add(
          metrics.metricName("commit-latency-avg-ms", "average commit time"), new Avg());
      commitLatency.add(
          metrics.metricName("commit-latency-max-ms", "longest commit time"), new Max());
    }
  }

  public static SinkMetrics of(MetricRegistry metrics) {
    return new SinkMetrics(metrics);
  }

  /** Records nothing (tests, benchmarks). */
  public static SinkMetrics none() {
    return new SinkMetrics(null);
  }

  private static Sensor counter(MetricRegistry metrics, String name, String what) {
    if (metrics == null) {
      return null;
    }
    Sensor s = metrics.sensor(name);
    s.add(metrics.metricName(name + "-total", "total " + what), new CumulativeSum());
    s.add(metrics.metricName(name + "-rate", "per second: " + what), new Rate());
    return s;
  }

  void recordAccepted() {
    record(accepted, 1);
  }

  void recordSkipped() {
    record(skipped, 1);
  }

  void recordErrant() {
    record(errant, 1);
  }

  void recordFenced() {
    record(fenced, 1);
  }

  void recordCommit(Batch batch, long millis) {
    record(commits, 1);
    record(committedRows, batch.rows());
    record(committedBytes, batch.bytes());
    record(commitLatency, millis);
  }

  private static void record(Sensor sensor, double value) {
    if (sensor != null) {
      sensor.record(value);
    }
  }
}
