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

  /** Per commit that adds data files, oldest first, the bytes of the files it adds. */
  public static List<Long> bytesPerCommit(Configuration conf, String tablePath) {
    List<Long> out = new ArrayList<>();
    Iterator<VersionLog> changes = DeltaLog.forTable(conf, tablePath).getChanges(0, false);
    while (changes.hasNext()) {
      long bytes =
          changes.next().getActions().stream()
              .filter(AddFile.class::isInstance)
              .mapToLong(a -> ((AddFile) a).getSize())
              .sum();
      if (bytes > 0) {
        out.add(bytes);
      }
    }
    return out;
  }

  /** Reads every row's {@code id} column (a long) of the latest snapshot. */
  public static DeltaTableContents read(Configuration conf, String tablePath) throws Exception {
    Snapshot snapshot = DeltaLog.forTable(conf, tablePath).update();
    Map<Long, Integer> counts = new HashMap<>();
    Map<Long, Map<String, String>> partitions = new HashMap<>();
    for (Row row : rows(conf, tablePath, snapshot)) {
      long id = row.values().getLong("id", 0);
      counts.merge(id, 1, Integer::sum);
      partitions.put(id, row.partitionValues());
    }
    return new DeltaTableContents(
        snapshot.getVersion(),
        snapshot.getMetadata(),
        new ArrayList<>(snapshot.getAllFiles()),
        counts,
        partitions);
  }

  /** A row of the table: its values in the data file, and the file's partition values. */
  public record Row(Group values, Map<String, String> partitionValues) {}

  /** Every row of the snapshot, read from its data files with parquet-hadoop. */
  public static List<Row> rows(Configuration conf, String tablePath, Snapshot snapshot)
      throws Exception {
    Path root = new Path(tablePath);
    List<Row> rows = new ArrayList<>();
    for (AddFile add : snapshot.getAllFiles()) {
      Path file = new Path(root, new Path(new URI(add.getPath())));
      for (Group values : ParquetRows.read(conf, file)) {
        rows.add(new Row(values, add.getPartitionValues()));
      }
    }
    return rows;
  }

  /** Waits until the table holds at least {@code rows} rows (it may not exist yet). */
  public static void awaitRows(Configuration conf, String tablePath, long rows, long timeoutMs)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    long seen = -1;
    while (System.currentTimeMillis() < deadline) {
      try {
        seen = read(conf, tablePath).rows();
      } catch (RuntimeException e) {
        // Not created yet.
      }
      if (seen >= rows) {
        return;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(
        "the table holds " + seen + " of " + rows + " rows after " + timeoutMs / 1000 + " s");
  }

  public long rows() {
    return idCounts.values().stream().mapToLong(Integer::longValue).sum();
  }
}
