package io.kcdelta.table;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Records what a task asks of Connect: seeks, timeouts, errant records. Also plays a zombie task's
 * Connect in ITs.
 */
public final class FakeSinkContext implements SinkTaskContext {
  public final Map<TopicPartition, Long> seeks = new HashMap<>();

  /** The last back-off asked for with {@link #timeout} (-1: none). */
  public long timeoutMs = -1;

  public final Set<TopicPartition> assignment = new HashSet<>();
  public final List<SinkRecord> errant = new CopyOnWriteArrayList<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();

  /** What {@link #pluginMetrics()} returns: none unless a test plays a Connect 4.1+ worker. */
  public PluginMetrics pluginMetrics;

  final ErrantRecordReporter reporter =
      (record, error) -> {
        errant.add(record);
        errors.add(error);
        Future<Void> done = CompletableFuture.completedFuture(null);
        return done;
      };

  @Override
  public Map<String, String> configs() {
    return Map.of();
  }

  @Override
  public void offset(Map<TopicPartition, Long> offsets) {
    seeks.putAll(offsets);
  }

  @Override
  public void offset(TopicPartition tp, long offset) {
    seeks.put(tp, offset);
  }

  @Override
  public void timeout(long timeoutMs) {
    this.timeoutMs = timeoutMs;
  }

  @Override
  public Set<TopicPartition> assignment() {
    return assignment;
  }

  @Override
  public void pause(TopicPartition... partitions) {}

  @Override
  public void resume(TopicPartition... partitions) {}

  @Override
  public void requestCommit() {}

  @Override
  public ErrantRecordReporter errantRecordReporter() {
    return reporter;
  }

  @Override
  public PluginMetrics pluginMetrics() {
    return pluginMetrics;
  }
}
