package io.kcdelta.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.junit.jupiter.api.Test;

/**
 * Two tasks of one connector on one worker share the worker's {@code Metrics}, as in Connect 4.1+
 * (found by bin/compat-test on 4.3.1: both tasks' MBeans showed the sum of both tasks' commits).
 */
class PluginMetricRegistryTest {
  @Test
  void tasksOnOneWorkerKeepTheirOwnCounts() throws Exception {
    try (Metrics worker = new Metrics()) {
      PluginMetricsImpl plugin0 = new PluginMetricsImpl(worker, tags("0"));
      PluginMetricsImpl plugin2 = new PluginMetricsImpl(worker, tags("2"));
      PluginMetricRegistry task0 = new PluginMetricRegistry(plugin0, "orders", 0);
      PluginMetricRegistry task2 = new PluginMetricRegistry(plugin2, "orders", 2);
      // as SinkMetrics does: one sensor per name and task, a "-total" metric on it
      Sensor sensor0 = task0.sensor("commits");
      Sensor sensor2 = task2.sensor("commits");
      MetricName commits0 = task0.metricName("commits-total", "total commits");
      MetricName commits2 = task2.metricName("commits-total", "total commits");
      sensor0.add(commits0, new CumulativeSum());
      sensor2.add(commits2, new CumulativeSum());

      sensor0.record(1);
      sensor2.record(1);
      sensor2.record(1);

      assertEquals(1.0, worker.metric(commits0).metricValue());
      assertEquals(2.0, worker.metric(commits2).metricValue());

      plugin0.close(); // task 0 stops: task 2's sensor and metric stay
      sensor2.record(1);
      assertEquals(3.0, worker.metric(commits2).metricValue());
      plugin2.close();
    }
  }

  private static Map<String, String> tags(String task) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", "orders");
    tags.put("task", task);
    return tags;
  }
}
