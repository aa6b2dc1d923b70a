package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.Metadata;
import io.kcdelta.parquet.DataFile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * One committer of the sink's commit path (a commit group of its own with its own Delta log, as a
 * task with {@code delta.commit.group=false} or a worker JVM has) for tests and benches outside
 * this package: each commit is one file and the txn of the committer's own Kafka partition (in the
 * null partition of a partitioned table), fenced as a task's would be.
 */
public final class SinkCommitLoop {
  private final CommitGroup group;
  private final Path root;
  private final TopicPartition partition;
  private final Metadata table;
  private final String appId;
  private long offset;

  /** A committer that writes its checkpoints on its committing thread. */
  public SinkCommitLoop(Configuration conf, String table, int id) {
    this(conf, table, id, Runnable::run);
  }

  /**
   * @param id the committer's Kafka partition (and file names): distinct per committer
   * @param checkpoints where its checkpoints are written, as a worker's background thread does
   */
  public SinkCommitLoop(Configuration conf, String table, int id, Executor checkpoints) {
    root = new Path(table);
    DeltaSinkConfig config =
        new DeltaSinkConfig(
            Map.of("name", "bench", "delta.table.path", table, "delta.commit.group", "false"));
    group = new CommitGroups(checkpoints).join(this, table, conf, config);
    partition = new TopicPartition("bench", id);
    appId =
        new DeltaCommitter(config.txnAppIdPrefix(), config.schemaEvolution(), Map.of())
            .appId(partition);
    DeltaCommitter.LogRead read = group.read(Set.of(appId));
    this.table = read.metadata();
    offset = read.txnVersions().get(appId) + 1;
  }

  /** The txn appId of the committer's partition. */
  public String appId() {
    return appId;
  }

  /**
   * Commits the next file.
   *
   * @return the table version it became
   */
  public long commitNext() {
    Map<String, String> nullPartition = new HashMap<>();
    table.partitionColumns().forEach(c -> nullPartition.put(c, null));
    Path file = new Path(root, "c" + partition.partition() + "-" + offset + ".parquet");
    Batch batch =
        new Batch(
            List.of(
                new PendingFile(new DataFile(file, 1000, 1, "{\"numRecords\":1}"), nullPartition)),
            Map.of(partition, offset),
            table.schema(),
            table.partitionColumns());
    CommitGroup.Entry entry = group.handIn(this, batch, Map.of(partition, offset - 1), 0);
    DeltaCommitter.Outcome outcome = group.commitNow(entry);
    if (!(outcome instanceof DeltaCommitter.Committed committed)) {
      throw new IllegalStateException("commit of offset " + offset + ": " + outcome);
    }
    offset++;
    return committed.version();
  }
}
