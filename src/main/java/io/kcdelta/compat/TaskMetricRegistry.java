package io.kcdelta.compat;

import io.kcdelta.metrics.MetricRegistry;

/** A task's {@link MetricRegistry}, released when the task stops. */
public interface TaskMetricRegistry extends MetricRegistry, AutoCloseable {
  @Override
  void close();
}
