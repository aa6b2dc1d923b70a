package io.kcdelta.table;

import java.util.LinkedHashMap;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;

/** The task's operational metrics, published through Connect's plugin metrics (JMX and reporters). */
public final class SinkMetrics {
  private final Sensor accepted;
  private final Sensor skipped;
  private final Sensor errant;
  private final Sensor commits;
  private final Sensor commitLatency;
  private final Sensor committedRows;
  private final Sensor committedBytes;
  private final Sensor fenced;

  private SinkMetrics(PluginMetrics metrics) {
    accepted = counter(metrics, "records-written", "rows buffered for the table");
    skipped = counter(metrics, "records-skipped", "redelivered records and ignored tombstones");
    errant = counter(metrics, "records-errant", "records sent to the errant record reporter");
    commits = counter(metrics, "commits", "Delta commits made");
    committedRows = counter(metrics, "committed-rows", "rows made durable in the Delta log");
    committedBytes = counter(metrics, "committed-bytes", "bytes of Parquet made durable");
    fenced = counter(metrics, "commits-fenced", "batches refused because another writer owned the partitions");
    commitLatency = metrics == null ? null : metrics.addSensor("commit-latency");
    if (commitLatency != null) {
      commitLatency.add(metrics.metricName("commit-latency-avg-ms", "average commit time", tags()), new Avg());
      commitLatency.add(metrics.metricName("commit-latency-max-ms", "longest commit time", tags()), new Max());
    }
  }

  /** @param metrics null where the worker offers none (then nothing is recorded) */
  public static SinkMetrics of(PluginMetrics metrics) {
    return new SinkMetrics(metrics);
  }

  private static Sensor counter(PluginMetrics metrics, String name, String what) {
    if (metrics == null) {
      return null;
    }
    Sensor s = metrics.addSensor(name);
    s.add(metrics.metricName(name + "-total", "total " + what, tags()), new CumulativeSum());
    s.add(metrics.metricName(name + "-rate", "per second: " + what, tags()), new Rate());
    return s;
  }

  private static LinkedHashMap<String, String> tags() {
    return new LinkedHashMap<>();
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
