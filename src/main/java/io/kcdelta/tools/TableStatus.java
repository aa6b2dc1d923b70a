package io.kcdelta.tools;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.CommitInfo;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.internal.SnapshotImpl;
import io.delta.storage.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a Delta table holds, read through Delta Standalone: its version, files, rows, the latest
 * commits, and every {@code txn} (appId and version) in it.
 *
 * @param rows rows of the files whose stats say how many (see {@code filesWithoutRowCount})
 */
record TableStatus(
    String path,
    long version,
    long timestampMs,
    List<String> partitionColumns,
    long files,
    long rows,
    long filesWithoutRowCount,
    long bytes,
    List<Commit> commits,
    List<Txn> txns) {

  /** One version: when, what, and the data files and rows it added. */
  record Commit(
      long version, long timestampMs, String operation, String engine, long files, long rows) {}

  /** A txn action as the table holds it. */
  record Txn(String appId, long version, long lastUpdatedMs) {}

  private static final Pattern NUM_RECORDS = Pattern.compile("\"numRecords\"\\s*:\\s*(\\d+)");

  /**
   * @param recent how many of the latest versions to describe
   * @throws IllegalStateException when there is no Delta table at {@code path}
   */
  static TableStatus read(Configuration conf, String path, int recent) {
    DeltaLog log = DeltaLog.forTable(conf, path);
    Snapshot snapshot = log.update();
    if (snapshot.getVersion() < 0) {
      throw new IllegalStateException("No Delta table at " + path + " (no _delta_log commits)");
    }
    long files = 0;
    long rows = 0;
    long withoutCount = 0;
    long bytes = 0;
    for (AddFile add : snapshot.getAllFiles()) {
      files++;
      bytes += add.getSize();
      long n = numRecords(add.getStats());
      if (n < 0) {
        withoutCount++;
      } else {
        rows += n;
      }
    }
    List<Txn> txns = new ArrayList<>();
    // Delta Standalone's public API reads a txn only by its appId; the snapshot knows them all.
    for (SetTransaction t :
        CollectionConverters.asJava(((SnapshotImpl) snapshot).setTransactions())) {
      txns.add(new Txn(t.getAppId(), t.getVersion(), t.getLastUpdated().orElse(-1L)));
    }
    txns.sort(Comparator.comparing(Txn::appId));
    return new TableStatus(
        path,
        snapshot.getVersion(),
        timestamp(log, snapshot.getVersion()),
        snapshot.getMetadata().getPartitionColumns(),
        files,
        rows,
        withoutCount,
        bytes,
        commits(log, snapshot.getVersion(), recent),
        txns);
  }

  /** When the version was committed, from its commitInfo (-1: a writer that wrote none). */
  private static long timestamp(DeltaLog log, long version) {
    try {
      return log.getCommitInfoAt(version).getTimestamp().getTime();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static List<Commit> commits(DeltaLog log, long latest, int recent) {
    List<Commit> commits = new ArrayList<>();
    long first = Math.max(0, latest - recent + 1);
    if (recent <= 0) {
      return commits;
    }
    Iterator<VersionLog> changes = log.getChanges(first, false);
    while (changes.hasNext()) {
      VersionLog v = changes.next();
      if (v.getVersion() > latest) {
        break;
      }
      long added = 0;
      long addedRows = 0;
      CommitInfo info = null;
      try (CloseableIterator<Action> actions = v.getActionsIterator()) {
        while (actions.hasNext()) {
          Action a = actions.next();
          if (a instanceof AddFile add) {
            added++;
            addedRows += Math.max(0, numRecords(add.getStats()));
          } else if (a instanceof CommitInfo c) {
            info = c;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      commits.add(
          new Commit(
              v.getVersion(),
              info == null ? -1 : info.getTimestamp().getTime(),
              info == null ? "" : info.getOperation(),
              info == null ? "" : info.getEngineInfo().orElse(""),
              added,
              addedRows));
    }
    return commits;
  }

  /** The stats' numRecords (-1: no stats, or none in them). */
  static long numRecords(String stats) {
    if (stats == null) {
      return -1;
    }
    Matcher m = NUM_RECORDS.matcher(stats);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
