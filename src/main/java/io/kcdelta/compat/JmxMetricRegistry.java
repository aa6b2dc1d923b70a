package io.kcdelta.compat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Time;

/**
 * Before Connect 4.1: an own metrics registry that publishes to the worker's JMX under exactly the
 * names Connect's plugin metrics use ({@code kafka.connect:type=plugins,connector=…,task=…}), so
 * one dashboard reads every Connect version.
 */
final class JmxMetricRegistry implements TaskMetricRegistry {
  /** JMX domain and metric group of Connect's plugin metrics (KIP-877). */
  static final String JMX_DOMAIN = "kafka.connect";

  static final String GROUP = "plugins";

  private final Metrics metrics;
  private final Map<String, String> tags;

  private JmxMetricRegistry(Metrics metrics, Map<String, String> tags) {
    this.metrics = metrics;
    this.tags = tags;
  }

  static JmxMetricRegistry forTask(String connector, int task) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", connector);
    tags.put("task", String.valueOf(task));
    Metrics metrics =
        new Metrics(
            new MetricConfig(),
            List.of(new JmxReporter()),
            Time.SYSTEM,
            new KafkaMetricsContext(JMX_DOMAIN));
    return new JmxMetricRegistry(metrics, tags);
  }

  @Override
  public Sensor sensor(String name) {
    return metrics.sensor(name);
  }

  @Override
  public MetricName metricName(String name, String description, Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(tags);
    all.putAll(more);
    return metrics.metricName(name, GROUP, description, all);
  }

  @Override
  public void addMetric(MetricName name, MetricValueProvider<?> value) {
    metrics.addMetric(name, value);
  }

  @Override
  public void removeMetric(MetricName name) {
    metrics.removeMetric(name);
  }

  @Override
  public void close() {
    metrics.close();
  }
}
