package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/** Task writers on a local table, each in a worker of its own, for tests of what records become. */
final class Writers {
  private Writers() {}

  /** A writer with a 1 s flush interval that has opened {@code tp}; {@code kv}: more settings. */
  static DeltaSinkWriter opened(
      String table, FakeSinkContext ctx, LongSupplier clock, TopicPartition tp, String... kv) {
    DeltaSinkWriter w = writer(table, ctx, clock, SinkMetrics.none(), kv);
    w.open(List.of(tp));
    return w;
  }

  /**
   * A writer with a 1 s flush interval recording into {@code metrics}; {@code kv}: more settings.
   */
  static DeltaSinkWriter writer(
      String table, FakeSinkContext ctx, LongSupplier clock, SinkMetrics metrics, String... kv) {
    return writer(table, ctx, clock, metrics, new CommitGroups(), kv);
  }

  /** The same in the worker whose commit groups are {@code worker}. */
  static DeltaSinkWriter writer(
      String table,
      FakeSinkContext ctx,
      LongSupplier clock,
      SinkMetrics metrics,
      CommitGroups worker,
      String... kv) {
    Map<String, String> p = new HashMap<>();
    p.put("name", "sink");
    p.put("delta.table.path", table);
    p.put("flush.interval.ms", "1000");
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    DeltaSinkConfig config = new DeltaSinkConfig(p);
    return new DeltaSinkWriter(
        config,
        ctx,
        HadoopConfigurationFactory.create(config),
        ctx.reporter,
        metrics,
        RecordOrigin.ORIGINAL,
        clock,
        worker);
  }
}
