package io.kcdelta.compat;

import io.kcdelta.record.RecordOrigin;
import java.util.Arrays;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The one place that knows which Connect API the worker offers. The plugin is compiled against a
 * recent connect-api but must run on every worker from Connect 3.0 on, so each API newer than 3.0
 * is detected once, here, and the rest of the code receives a choice instead of probing.
 *
 * <ul>
 *   <li>{@code SinkRecord.originalTopic()/originalKafkaPartition()/originalKafkaOffset()}: Connect
 *       3.6 (KIP-793).
 *   <li>{@code SinkTaskContext.pluginMetrics()}: Connect 4.1 (KIP-877).
 * </ul>
 */
public final class ConnectApi {
  private static final ConnectApi WORKER =
      new ConnectApi(
          hasMethod(SinkRecord.class, "originalTopic"),
          hasMethod(SinkTaskContext.class, "pluginMetrics"));

  private final boolean originalCoordinates;
  private final boolean pluginMetrics;

  ConnectApi(boolean originalCoordinates, boolean pluginMetrics) {
    this.originalCoordinates = originalCoordinates;
    this.pluginMetrics = pluginMetrics;
  }

  /** What the Connect API this plugin is loaded with offers. */
  public static ConnectApi ofWorker() {
    return WORKER;
  }

  public RecordOrigin recordOrigin() {
    return originalCoordinates ? RecordOrigin.ORIGINAL : RecordOrigin.AS_DELIVERED;
  }

  /**
   * The task's metrics: the worker's plugin metrics where it offers them, else an own registry that
   * publishes the same names and tags to JMX (the caller closes it in {@code stop()}).
   */
  public TaskMetricRegistry metrics(SinkTaskContext context, String connector, int task) {
    // A runtime may have the 4.1 API and still offer none (a test harness, another Connect
    // runtime).
    PluginMetrics workerMetrics = pluginMetrics ? context.pluginMetrics() : null;
    return workerMetrics != null
        ? new PluginMetricRegistry(workerMetrics, connector, task)
        : JmxMetricRegistry.forTask(connector, task);
  }

  /**
   * For the log line at task start: what an operator needs to read the metrics and the txn appIds.
   */
  @Override
  public String toString() {
    return "record coordinates "
        + (originalCoordinates ? "before SMTs (originalTopic)" : "after SMTs (topic)")
        + ", metrics "
        + (pluginMetrics ? "through Connect plugin metrics" : "through an own JMX registry");
  }

  private static boolean hasMethod(Class<?> type, String name) {
    return Arrays.stream(type.getMethods())
        .anyMatch(m -> m.getName().equals(name) && m.getParameterCount() == 0);
  }
}
