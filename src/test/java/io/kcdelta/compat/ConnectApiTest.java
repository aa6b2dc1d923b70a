package io.kcdelta.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.metrics.MetricRegistry;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.table.FakeSinkContext;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** The branches of the compatibility seam: record coordinates and where the task's metrics go. */
class ConnectApiTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
  private static final String CONNECTOR = "conn-a";
  private static final int TASK = 3;

  /** Connect's plugin metrics name for a task (KIP-877), which the own JMX registry must match. */
  private static ObjectName taskMBean() throws JMException {
    return new ObjectName("kafka.connect:type=plugins,connector=" + CONNECTOR + ",task=" + TASK);
  }

  /** Delivered as renamed-7@42 by an SMT; consumed as orders-2@1000. */
  private static SinkRecord renamedRecord() {
    return new SinkRecord(
        "renamed",
        7,
        null,
        "k",
        null,
        "v",
        42L,
        1L,
        TimestampType.CREATE_TIME,
        List.of(),
        "orders",
        2,
        1000L);
  }

  @Test
  void originalCoordinatesWhereTheWorkerKeepsThem() {
    RecordOrigin origin = new ConnectApi(true, false).recordOrigin();
    assertSame(RecordOrigin.ORIGINAL, origin);
    assertEquals(new TopicPartition("orders", 2), origin.partition(renamedRecord()));
    assertEquals(1000L, origin.offset(renamedRecord()));
    assertEquals("orders-2@1000", origin.describe(renamedRecord()));
  }

  @Test
  void deliveredCoordinatesBeforeConnect36() {
    RecordOrigin origin = new ConnectApi(false, true).recordOrigin();
    assertSame(RecordOrigin.AS_DELIVERED, origin);
    assertEquals(new TopicPartition("renamed", 7), origin.partition(renamedRecord()));
    assertEquals(42L, origin.offset(renamedRecord()));
    assertEquals("renamed-7@42", origin.describe(renamedRecord()));
  }

  @Test
  void theTestClasspathsConnectHasBothNewApis() throws Exception {
    ConnectApi api = ConnectApi.ofWorker();
    assertSame(RecordOrigin.ORIGINAL, api.recordOrigin());
    FakeSinkContext context = new FakeSinkContext();
    try (Metrics worker = new Metrics();
        PluginMetricsImpl plugin = new PluginMetricsImpl(worker, Map.of())) {
      context.pluginMetrics = plugin;
      try (TaskMetricRegistry metrics = api.metrics(context, CONNECTOR, TASK)) {
        assertInstanceOf(PluginMetricRegistry.class, metrics);
      }
    }
    // a context with the 4.1 API that offers no plugin metrics gets the own registry
    try (TaskMetricRegistry metrics = api.metrics(new FakeSinkContext(), CONNECTOR, TASK)) {
      assertInstanceOf(JmxMetricRegistry.class, metrics);
    }
    assertEquals(
        "record coordinates before SMTs (originalTopic), metrics through Connect plugin metrics",
        api.toString());
  }

  @Test
  void beforeConnect41AnOwnRegistryPublishesTheTaskMetricsToJmx() throws JMException {
    ObjectName name = taskMBean();
    assertFalse(JMX.isRegistered(name));
    TaskMetricRegistry registry =
        new ConnectApi(true, false).metrics(new FakeSinkContext(), CONNECTOR, TASK);
    assertInstanceOf(JmxMetricRegistry.class, registry);
    try {
      recordTwoCommits(registry);
      assertTrue(JMX.isRegistered(name), name + " registered");
      assertEquals(2.0, JMX.getAttribute(name, "commits-total"));
    } finally {
      registry.close();
    }
    assertFalse(JMX.isRegistered(name), "close() unregisters " + name);
  }

  @Test
  void pluginMetricsPublishUnderTheSameNamesAsTheOwnRegistry() throws Exception {
    Map<ObjectName, Set<String>> ownRegistry;
    TaskMetricRegistry jmx =
        new ConnectApi(true, false).metrics(new FakeSinkContext(), CONNECTOR, TASK);
    try {
      recordTwoCommits(jmx);
      ownRegistry = published();
    } finally {
      jmx.close();
    }
    assertEquals(Map.of(), published());

    // What a Connect 4.1+ worker hands the task: plugin metrics over the worker's metrics, which
    // report
    // to JMX in the kafka.connect domain, tagged with the connector and the task.
    Metrics workerMetrics =
        new Metrics(
            new MetricConfig(),
            List.of(new JmxReporter()),
            Time.SYSTEM,
            new KafkaMetricsContext("kafka.connect"));
    Map<String, String> taskTags = new LinkedHashMap<>();
    taskTags.put("connector", CONNECTOR);
    taskTags.put("task", String.valueOf(TASK));
    PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(workerMetrics, taskTags);
    FakeSinkContext context = new FakeSinkContext();
    context.pluginMetrics = pluginMetrics;
    try {
      TaskMetricRegistry registry = new ConnectApi(true, true).metrics(context, CONNECTOR, TASK);
      assertInstanceOf(PluginMetricRegistry.class, registry);
      recordTwoCommits(registry);
      assertEquals(2.0, JMX.getAttribute(taskMBean(), "commits-total"));
      assertEquals(ownRegistry, published(), "both branches publish the same MBean and attributes");
      assertEquals(Set.of(taskMBean()), published().keySet());
      registry.close(); // the worker's to close, not the task's
      assertTrue(JMX.isRegistered(taskMBean()));
    } finally {
      pluginMetrics.close();
      workerMetrics.close();
    }
    assertFalse(JMX.isRegistered(taskMBean()));
  }

  @Test
  void tasksSharingAWorkersMetricsKeepTheirOwnSensors() throws Exception {
    Metrics workerMetrics =
        new Metrics(
            new MetricConfig(),
            List.of(new JmxReporter()),
            Time.SYSTEM,
            new KafkaMetricsContext("kafka.connect"));
    PluginMetricsImpl task3 =
        new PluginMetricsImpl(workerMetrics, Map.of("connector", CONNECTOR, "task", "3"));
    PluginMetricsImpl task4 =
        new PluginMetricsImpl(workerMetrics, Map.of("connector", CONNECTOR, "task", "4"));
    ObjectName mbean4 =
        new ObjectName("kafka.connect:type=plugins,connector=" + CONNECTOR + ",task=4");
    try {
      FakeSinkContext context3 = new FakeSinkContext();
      context3.pluginMetrics = task3;
      FakeSinkContext context4 = new FakeSinkContext();
      context4.pluginMetrics = task4;
      SinkMetrics.of(new ConnectApi(true, true).metrics(context4, CONNECTOR, 4));
      recordTwoCommits(new ConnectApi(true, true).metrics(context3, CONNECTOR, 3));
      assertEquals(2.0, JMX.getAttribute(taskMBean(), "commits-total"));
      assertEquals(0.0, JMX.getAttribute(mbean4, "commits-total"), "task 4 made no commit");
      task3.close(); // the worker stops task 3
      assertFalse(JMX.isRegistered(taskMBean()));
      assertTrue(JMX.isRegistered(mbean4), "task 4's metrics outlive task 3");
    } finally {
      task3.close();
      task4.close();
      workerMetrics.close();
    }
  }

  /** The task's sensors as {@link SinkMetrics} creates them; records two commits on "commits". */
  private static void recordTwoCommits(TaskMetricRegistry registry) {
    Map<String, Sensor> sensors = new HashMap<>();
    SinkMetrics.of(
        new MetricRegistry() {
          @Override
          public Sensor sensor(String name) {
            Sensor s = registry.sensor(name);
            sensors.put(name, s);
            return s;
          }

          @Override
          public MetricName metricName(String name, String description, Map<String, String> tags) {
            return registry.metricName(name, description, tags);
          }

          @Override
          public void addMetric(MetricName name, MetricValueProvider<?> value) {
            registry.addMetric(name, value);
          }

          @Override
          public void removeMetric(MetricName name) {
            registry.removeMetric(name);
          }
        });
    sensors.get("commits").record(1);
    sensors.get("commits").record(1);
  }

  /**
   * The plugin MBeans of connector conn-a in the platform MBeanServer, with their attribute names.
   */
  private static Map<ObjectName, Set<String>> published() throws JMException {
    Map<ObjectName, Set<String>> found = new HashMap<>();
    for (ObjectName n :
        JMX.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + CONNECTOR + ",*"), null)) {
      found.put(
          n,
          Arrays.stream(JMX.getMBeanInfo(n).getAttributes())
              .map(MBeanAttributeInfo::getName)
              .collect(Collectors.toCollection(TreeSet::new)));
    }
    return found;
  }
}
