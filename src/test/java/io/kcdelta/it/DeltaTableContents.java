package io.kcdelta.it;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.testutil.ParquetRows;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;

/**
 * What a Delta table holds, read independently of the connector: Delta Standalone + parquet-hadoop.
 */
public record DeltaTableContents(
    long version,
    Metadata metadata,
    List<AddFile> files,
    Map<Long, Integer> idCounts,
    Map<Long, Map<String, String>> partitionValuesById) {

  /** The txn versions of the given appIds (-1 for none), read through a fresh DeltaLog. */
  public static Map<String, Long> txnVersions(
      Configuration conf, String tablePath, Collection<String> appIds) {
    OptimisticTransaction txn = DeltaLog.forTable(conf, tablePath).startTransaction();
    Map<String, Long> out = new HashMap<>();
    for (String appId : appIds) {
      out.put(appId, txn.txnVersion(appId));
    }
    return out;
  }

  /** Per commit of the table, oldest first, how many txn (Kafka offset) actions it carries. */
  public static List<Integer> txnsPerCommit(Configuration conf, String tablePath) {
    List<Integer> out = new ArrayList<>();
    Iterator<VersionLog> changes = DeltaLog.forTable(conf, tablePath).getChanges(0, false);
    while (changes.hasNext()) {
      out.add(
          (int)
              changes.next().getActions().stream()
                  .filter(SetTransaction.class::isInstance)
                  .count());
    }
    return out;
  }

  /** Reads every row's {@code id} column (a long) of the latest snapshot. */
  public static DeltaTableContents read(Configuration conf, String tablePath) throws Exception {
    DeltaLog log = DeltaLog.forTable(conf, tablePath);
    Snapshot snapshot = log.update();
    Path root = new Path(tablePath);
    Map<Long, Integer> counts = new HashMap<>();
    Map<Long, Map<String, String>> partitions = new HashMap<>();
    List<AddFile> files = new ArrayList<>(snapshot.getAllFiles());
    for (AddFile add : files) {
      Path file = new Path(root, new Path(new URI(add.getPath())));
      for (Group row : ParquetRows.read(conf, file)) {
        long id = row.getLong("id", 0);
        counts.merge(id, 1, Integer::sum);
        partitions.put(id, add.getPartitionValues());
      }
    }
    return new DeltaTableContents(
        snapshot.getVersion(), snapshot.getMetadata(), files, counts, partitions);
  }

  public long rows() {
    return idCounts.values().stream().mapToLong(Integer::longValue).sum();
  }
}
