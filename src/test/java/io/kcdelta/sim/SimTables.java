package io.kcdelta.sim;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import io.kcdelta.delta.dv.DeletionVectorFiles;
import io.kcdelta.testutil.ParquetRows;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.parquet.example.data.Group;

/**
 * What a schedule's Delta tables hold, read as an independent reader would: Delta Standalone for
 * the snapshot and the txn versions, parquet-hadoop for the rows, the commit files themselves for
 * files added twice, on the plain local file system (no faults).
 */
final class SimTables {
  /**
   * Without Hadoop's shipped defaults (core-default.xml): the local file system, Parquet and Delta
   * read them from their code defaults, while each DeltaLog.forTable matches every entry against
   * regexes and each {@code new Configuration()} parses the file again (a quarter of the run when
   * every check made its own). The readers use the plain local file system, not the simulated one:
   * no faults.
   */
  private final Configuration conf = new Configuration(false);

  private final String appIdPrefix;
  private final Function<TopicPartition, String> tableOf;
  private final Map<String, DeltaLog> readers = new HashMap<>();
  private final Map<String, CommitFiles> commits = new HashMap<>();

  SimTables(String appIdPrefix, Function<TopicPartition, String> tableOf) {
    this.appIdPrefix = appIdPrefix;
    this.tableOf = tableOf;
  }

  /**
   * The txn version of each partition whose table exists (-1: the table holds none of it), as Delta
   * Standalone reads it: the authority, for the final check.
   */
  Map<TopicPartition, Long> txnVersions(List<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    Map<String, OptimisticTransaction> txns = new HashMap<>();
    for (TopicPartition tp : partitions) {
      DeltaLog log = reader(tableOf.apply(tp));
      if (log != null) {
        OptimisticTransaction txn =
            txns.computeIfAbsent(tableOf.apply(tp), t -> log.startTransaction());
        out.put(tp, txn.txnVersion(appId(tp)));
      }
    }
    return out;
  }

  /**
   * The same from the commit files read so far, for deciding when the drain is done: rebuilding a
   * Delta snapshot reads the last checkpoint again (and parses core-default.xml again, in
   * parquet4s), which made the drain's checks a sixth of the run. Delta's rule: an appId's version
   * is that of its latest txn action. A wrong answer here only ends the drain early (the final
   * check then fails) or late.
   */
  Map<TopicPartition, Long> txnVersionsFromCommits(List<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    for (TopicPartition tp : partitions) {
      Map<String, Long> versions = commitsOf(tableOf.apply(tp)).txnVersions();
      out.put(tp, versions.getOrDefault(appId(tp), -1L));
    }
    return out;
  }

  /** The same for one table of many partitions' records (routed by field). */
  Map<TopicPartition, Long> txnVersionsFromCommits(String table, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    if (!logDir(table).exists()) {
      return out;
    }
    Map<String, Long> versions = commitsOf(table).txnVersions();
    for (TopicPartition tp : partitions) {
      out.put(tp, versions.getOrDefault(appId(tp), -1L));
    }
    return out;
  }

  /** The txn versions one table holds, as Delta Standalone reads them (routed by field). */
  Map<TopicPartition, Long> txnVersions(String table, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    DeltaLog log = reader(table);
    if (log != null) {
      OptimisticTransaction txn = log.startTransaction();
      for (TopicPartition tp : partitions) {
        out.put(tp, txn.txnVersion(appId(tp)));
      }
    }
    return out;
  }

  private CommitFiles commitsOf(String table) {
    return commits.computeIfAbsent(table, t -> new CommitFiles(logDir(t)));
  }

  private String appId(TopicPartition tp) {
    return appIdPrefix + "-" + tp.topic() + "-" + tp.partition();
  }

  /**
   * Counts the rows of every file in the tables' current snapshots by "topic-partition@offset";
   * adds a violation for a file added twice in the log or that cannot be read.
   */
  Map<String, Integer> rows(List<String> tables, List<String> violations) {
    Map<String, Integer> rows = new TreeMap<>();
    for (String table : tables) {
      DeltaLog log = reader(table);
      if (log == null) {
        continue;
      }
      commitsOf(table).filesAddedTwice().forEach(v -> violations.add(table + ": " + v));
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
      for (AddFile add : log.snapshot().getAllFiles()) {
        try {
          count(new org.apache.hadoop.fs.Path(root, add.getPath()), DeletionVector.of(), rows);
        } catch (IOException e) {
          violations.add(table + ": cannot read " + add.getPath() + ": " + e);
        }
      }
    }
    return rows;
  }

  /**
   * Upsert mode: the rows the table holds now, deletion vectors applied, by
   * "topic-partition@offset"; read through Delta Kernel (the table has deletion vectors, which
   * Delta Standalone does not read). Adds a violation for a file added twice other than with a new
   * deletion vector.
   */
  Map<String, Integer> upsertRows(String table, List<String> violations) {
    Map<String, Integer> rows = new TreeMap<>();
    if (!logDir(table).exists()) {
      return rows;
    }
    commitsOf(table).filesAddedTwice().forEach(v -> violations.add(table + ": " + v));
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
    TableLog log = new TableLog(table, conf, "sim-reader");
    DeletionVectorFiles vectors = new DeletionVectorFiles(root, conf);
    for (io.kcdelta.delta.AddFile add : log.liveFiles().files()) {
      try {
        DeletionVectorDescriptor d = add.deletionVectorDescriptor();
        count(
            LogPaths.absolute(root, add.path()),
            d == null ? DeletionVector.of() : vectors.read(d),
            rows);
      } catch (IOException e) {
        violations.add(table + ": cannot read " + add.path() + ": " + e);
      }
    }
    return rows;
  }

  /** Counts the file's rows but the deleted ones by "topic-partition@offset". */
  private void count(
      org.apache.hadoop.fs.Path file, DeletionVector deleted, Map<String, Integer> rows)
      throws IOException {
    long position = 0;
    for (Group g : ParquetRows.read(conf, file)) {
      if (!deleted.contains(position++)) {
        rows.merge(
            g.getString("t", 0) + "-" + g.getInteger("p", 0) + "@" + g.getLong("o", 0),
            1,
            Integer::sum);
      }
    }
  }

  /** The table's log as a reader sees it now (one DeltaLog per table, updated incrementally). */
  private DeltaLog reader(String table) {
    if (!logDir(table).exists()) {
      return null;
    }
    DeltaLog log = readers.computeIfAbsent(table, t -> DeltaLog.forTable(conf, t));
    log.update();
    return log;
  }

  static File logDir(String table) {
    return Path.of(URI.create(table)).resolve("_delta_log").toFile();
  }
}
