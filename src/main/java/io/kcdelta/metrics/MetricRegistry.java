package io.kcdelta.metrics;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Where the task's metrics live: Connect's plugin metrics on workers that have them, an own JMX
 * registry with the same names and tags on older ones (see {@code io.kcdelta.compat}). Either way
 * they appear as {@code kafka.connect:type=plugins,connector=<name>,task=<id>[,<tag>=<value>…]}.
 */
public interface MetricRegistry {
  /** The sensor of this name, created on first use; names are the task's own. */
  public Sensor sensor(String name);

  /** A metric of this task with more tags (e.g. the table), after the connector and task tags. */
  public MetricName metricName(String name, String description, Map<String, String> tags);

  /** A metric whose value is read when asked for (a gauge), not recorded by a sensor. */
  public void addMetric(MetricName name, MetricValueProvider<?> value);

  public void removeMetric(MetricName name);
}
