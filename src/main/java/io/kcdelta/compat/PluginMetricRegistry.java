package io.kcdelta.compat;

import java.util.LinkedHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Connect 4.1+: the worker's plugin metrics, which tag every metric with the connector and task and
 * remove them when the task stops. Loaded only on such workers ({@link ConnectApi}).
 *
 * <p>Sensor names are NOT scoped by the worker: {@code PluginMetrics.addSensor(name)} returns the
 * worker-wide {@code Metrics.sensor(name)}, so two tasks of one connector on the same worker asking
 * for "commits" would share one sensor (each commit counted in both tasks' MBeans, and the first task
 * to stop would remove the other's sensor). Every sensor name is therefore prefixed with the
 * connector and task. Metric names need no prefix: the worker tags them with connector and task.
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
  public MetricName metricName(String name, String description) {
    return metrics.metricName(name, description, new LinkedHashMap<>());
  }

  @Override
  public void close() {
    // the worker owns and closes its plugin metrics
  }
}
