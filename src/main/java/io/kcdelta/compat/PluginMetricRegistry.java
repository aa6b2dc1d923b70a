package io.kcdelta.compat;

import java.util.LinkedHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Connect 4.1+: the worker's plugin metrics, which tag every metric with the connector and task and
 * remove them when the task stops. Loaded only on such workers ({@link ConnectApi}).
 */
final class PluginMetricRegistry implements TaskMetricRegistry {
  private final PluginMetrics metrics;

  PluginMetricRegistry(PluginMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public Sensor sensor(String name) {
    return metrics.addSensor(name);
  }

  @Override
  public MetricName metricName(String name, String description) {
    return metrics.metricName(name, description, new LinkedHashMap<>());
  }

  @Override
  public void close() {
    // the worker owns and closes its plugin metrics
  }
}
