package io.kcdelta.bench;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.table.CommitGroups;
import io.kcdelta.table.DeltaSinkWriter;
import io.kcdelta.table.FakeSinkContext;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/** The task's writer without Connect, for the benches of the task path. */
final class LocalWriters {
  static final TopicPartition PARTITION = new TopicPartition("bench", 0);

  private LocalWriters() {}

  /**
   * A writer of this config (its table usually local) with a fake Connect context, holding
   * partition bench-0, on a clock the caller moves: commits come when it passes the flush interval.
   */
  static DeltaSinkWriter open(DeltaSinkConfig config, LongSupplier clock) {
    DeltaSinkWriter writer =
        new DeltaSinkWriter(
            config,
            new FakeSinkContext(),
            HadoopConfigurationFactory.create(config),
            null,
            SinkMetrics.none(),
            RecordOrigin.ORIGINAL,
            clock,
            new CommitGroups());
    writer.open(List.of(PARTITION));
    return writer;
  }
}
