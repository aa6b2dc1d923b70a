package io.kcdelta.sim;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.testutil.ParquetRows;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.parquet.example.data.Group;

/**
 * What a schedule's Delta tables hold, read as an independent reader would: Delta Standalone for the log,
 * parquet-hadoop for the rows, on the plain local file system (no faults).
 */
final class SimTables {
  /**
   * Parsed once per JVM: each {@code new Configuration()} reads core-default.xml again, which cost a
   * quarter of the simulation's time when every check made its own.
   */
  private static final Configuration DEFAULTS = loaded(new Configuration());

  private final Configuration conf = new Configuration(DEFAULTS);
  private final String appIdPrefix;
  private final Function<TopicPartition, String> tableOf;
  private final Map<String, DeltaLog> readers = new HashMap<>();
  /** Per table, the names in its _delta_log when its txn versions were last read. */
  private final Map<String, Set<String>> logListings = new HashMap<>();
  private Map<TopicPartition, Long> lastTxns = Map.of();

  SimTables(String appIdPrefix, Function<TopicPartition, String> tableOf) {
    this.appIdPrefix = appIdPrefix;
    this.tableOf = tableOf;
  }

  /** A copy of a Configuration whose defaults are already parsed: copies share the parse. */
  static Configuration loaded(Configuration conf) {
    conf.size(); // forces the resources to load
    return conf;
  }

  /** The txn version of each partition whose table exists (-1: the table holds none of it). */
  Map<TopicPartition, Long> txnVersions(List<TopicPartition> partitions) {
    if (!logsChanged(partitions)) {
      return lastTxns;
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    Map<String, OptimisticTransaction> txns = new HashMap<>();
    for (TopicPartition tp : partitions) {
      DeltaLog log = reader(tableOf.apply(tp));
      if (log != null) {
        OptimisticTransaction txn = txns.computeIfAbsent(tableOf.apply(tp), t -> log.startTransaction());
        out.put(tp, txn.txnVersion(appIdPrefix + "-" + tp.topic() + "-" + tp.partition()));
      }
    }
    lastTxns = out;
    return out;
  }

  /**
   * A reader's snapshot is rebuilt from the last checkpoint whenever the log changed, so the drain, which
   * asks every few rounds, only asks Delta when a listing of the log differs from the last one (log files
   * are only ever added or removed, never rewritten, except _last_checkpoint next to a new checkpoint).
   */
  private boolean logsChanged(List<TopicPartition> partitions) {
    boolean changed = false;
    for (String table : partitions.stream().map(tableOf).distinct().toList()) {
      String[] entries = logDir(table).list();
      Set<String> listing = entries == null ? Set.of() : Set.of(entries);
      changed |= !listing.equals(logListings.put(table, listing));
    }
    return changed;
  }

  /**
   * Counts the rows of every file in the tables' current snapshots by "topic-partition@offset"; adds a
   * violation for a file added twice in the log or that cannot be read.
   */
  Map<String, Integer> rows(List<String> tables, List<String> violations) {
    Map<String, Integer> rows = new TreeMap<>();
    for (String table : tables) {
      DeltaLog log = reader(table);
      if (log == null) {
        continue;
      }
      checkEachFileAddedOnce(table, log, violations);
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
      for (AddFile add : log.snapshot().getAllFiles()) {
        try {
          for (Group g : ParquetRows.read(conf, new org.apache.hadoop.fs.Path(root, add.getPath()))) {
            rows.merge(g.getString("t", 0) + "-" + g.getInteger("p", 0) + "@" + g.getLong("o", 0), 1, Integer::sum);
          }
        } catch (IOException e) {
          violations.add(table + ": cannot read " + add.getPath() + ": " + e);
        }
      }
    }
    return rows;
  }

  private static void checkEachFileAddedOnce(String table, DeltaLog log, List<String> violations) {
    Set<String> added = new HashSet<>();
    for (Iterator<VersionLog> it = log.getChanges(0, true); it.hasNext(); ) {
      VersionLog v = it.next();
      for (Action a : v.getActions()) {
        if (a instanceof AddFile add && !added.add(add.getPath())) {
          violations.add(table + ": file " + add.getPath() + " added twice (again in version " + v.getVersion() + ")");
        }
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

  private static File logDir(String table) {
    return Path.of(URI.create(table)).resolve("_delta_log").toFile();
  }
}
