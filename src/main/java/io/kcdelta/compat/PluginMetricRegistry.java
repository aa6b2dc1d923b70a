package io.kcdelta.compat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Connect 4.1+: the worker's plugin metrics, which tag every metric with the connector and task and
 * remove them when the task stops. Loaded only on such workers ({@link ConnectApi}).
 *
 * <p>Sensor names are the worker's, not the task's: {@code PluginMetrics.addSensor(name)} gets the
 * sensor of that name from the one {@code Metrics} that all tasks of the worker share. So each
 * sensor name carries the connector and task; else every task would record into, and on stop
 * remove, the others'. Sensor names never reach JMX (metric names do), so the names published do
 * not change.
 */
final class PluginMetricRegistry implements TaskMetricRegistry {
  private final PluginMetrics metrics;
  private final String sensorPrefix;

  PluginMetricRegistry(PluginMetrics metrics, String connector, int task) {
    this.metrics = metrics;
    this.sensorPrefix = "kcdelta:" + connector + ":" + task + ":";
  }

  @Override
  public Sensor sensor(String name) {
    return metrics.addSensor(sensorPrefix + name);
  }

  @Override
  public MetricName metricName(String name, String description, Map<String, String> tags) {
    return metrics.metricName(name, description, new LinkedHashMap<>(tags));
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
    // the worker owns and closes its plugin metrics
  }
}
