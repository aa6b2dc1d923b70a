package io.kcdelta.table;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Where the task's sensors live: Connect's plugin metrics on workers that have them, an own JMX
 * registry with the same names and tags on older ones (see {@code io.kcdelta.compat}).
 */
public interface MetricRegistry {
  Sensor sensor(String name);

  /** A metric of this task: the registry adds the connector and task tags. */
  MetricName metricName(String name, String description);
}
