package io.kcdelta.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Time;

/**
 * A task's metric registry on a Kafka {@link Metrics} of its own (connector {@code c}, task 0), as
 * the worker's would be, that remembers every metric name asked for and reads values back.
 */
public final class RecordingRegistry implements MetricRegistry, AutoCloseable {
  private final Metrics metrics;

  /** Every metric name created: the tags after connector and task, name, description. */
  final List<MetricCatalog.Entry> created = new ArrayList<>();

  public RecordingRegistry() {
    this(System::currentTimeMillis);
  }

  /** Gauges read at {@code clock}'s time, the writer's. */
  public RecordingRegistry(LongSupplier clock) {
    Time time =
        new Time() {
          @Override
          public long milliseconds() {
            return clock.getAsLong();
          }

          @Override
          public long nanoseconds() {
            return clock.getAsLong() * 1_000_000;
          }

          @Override
          public void sleep(long ms) {
            throw new UnsupportedOperationException();
          }

          @Override
          public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException();
          }
        };
    metrics = new Metrics(new MetricConfig(), List.of(), time);
  }

  @Override
  public Sensor sensor(String name) {
    return metrics.sensor(name);
  }

  @Override
  public MetricName metricName(String name, String description, Map<String, String> tags) {
    created.add(new MetricCatalog.Entry(List.copyOf(tags.keySet()), name, description));
    return metrics.metricName(name, "plugins", description, all(tags));
  }

  @Override
  public void addMetric(MetricName name, MetricValueProvider<?> value) {
    metrics.addMetric(name, value);
  }

  @Override
  public void removeMetric(MetricName name) {
    metrics.removeMetric(name);
  }

  /** The value of a published metric; {@code tags}: more tags as key, value pairs. */
  public double value(String name, String... tags) {
    KafkaMetric metric = metric(name, tags);
    if (metric == null) {
      throw new AssertionError("no metric " + name + " " + List.of(tags));
    }
    return ((Number) metric.metricValue()).doubleValue();
  }

  /** The published metric, or null. */
  public KafkaMetric metric(String name, String... tags) {
    return metrics.metric(metrics.metricName(name, "plugins", "", all(SinkMetrics.tags(tags))));
  }

  private static Map<String, String> all(Map<String, String> tags) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("connector", "c");
    all.put("task", "0");
    all.putAll(tags);
    return all;
  }

  @Override
  public void close() {
    metrics.close();
  }
}
