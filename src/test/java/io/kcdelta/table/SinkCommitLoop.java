package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.Metadata;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.schema.SchemaEvolution;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * One committer of the sink's commit path (its {@link DeltaCommitter}, with a DeltaLog of its own
 * as a worker JVM has) for tests and benches outside this package: each commit is one file and the
 * txn of the committer's own Kafka partition (in the null partition of a partitioned table), fenced
 * as a task's would be.
 */
public final class SinkCommitLoop {
  private final DeltaLog log;
  private final Path root;
  private final DeltaCommitter committer = new DeltaCommitter("bench", SchemaEvolution.Mode.NONE);
  private final TopicPartition partition;
  private long offset;

  /**
   * @param id the committer's Kafka partition (and file names): distinct per committer
   */
  public SinkCommitLoop(Configuration conf, String table, int id) {
    root = new Path(table);
    log = DeltaLog.forTable(conf, root);
    partition = new TopicPartition("bench", id);
    offset = log.startTransaction().txnVersion(appId()) + 1;
  }

  /** The txn appId of the committer's partition. */
  public String appId() {
    return committer.appId(partition);
  }

  /**
   * Commits the next file.
   *
   * @return the table version it became
   */
  public long commitNext() {
    Metadata table = log.snapshot().getMetadata();
    Map<String, String> nullPartition = new HashMap<>();
    table.getPartitionColumns().forEach(c -> nullPartition.put(c, null));
    Path file = new Path(root, "c" + partition.partition() + "-" + offset + ".parquet");
    Batch batch =
        new Batch(
            List.of(
                new PendingFile(new DataFile(file, 1000, 1, "{\"numRecords\":1}"), nullPartition)),
            Map.of(partition, offset),
            table.getSchema(),
            table.getPartitionColumns());
    CommitGroup.Entry entry = new CommitGroup.Entry(batch, Map.of(partition, offset - 1));
    DeltaCommitter.Outcome outcome = committer.commit(log, root, List.of(entry)).get(0);
    if (!(outcome instanceof DeltaCommitter.Committed committed)) {
      throw new IllegalStateException("commit of offset " + offset + ": " + outcome);
    }
    offset++;
    return committed.version();
  }
}
