package io.kcdelta.tools;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.KafkaCommitInfo;
import io.kcdelta.delta.LiveFiles;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.Txn;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * What a Delta table holds, read through the connector's Delta layer: its version, files, rows, the
 * latest commits, and every {@code txn} (appId and version) in it.
 *
 * @param rows rows of the files whose stats say how many (see {@code filesWithoutRowCount})
 * @param partitionsNamed the (txn appId prefix, topic) pairs the connector's commits say their
 *     appIds are made of
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
    List<Txn> txns,
    Set<Named> partitionsNamed) {

  /** One version: when, what, and the data files and rows it added. */
  record Commit(
      long version, long timestampMs, String operation, String engine, long files, long rows) {}

  /** A txn appId's parts, as a commit of the connector names them. */
  record Named(String prefix, String topic) {}

  /** Commits read back at most to explain the txns' appIds. */
  private static final int MAX_COMMITS_FOR_NAMES = 200;

  /**
   * @param recent how many of the latest versions to describe
   * @throws IllegalStateException when there is no Delta table at {@code path}
   */
  static TableStatus read(Configuration conf, String path, int recent) {
    TableLog log = new TableLog(path, conf, "kafka-connect-delta-status");
    LogState state = log.update();
    LiveFiles live = state.exists() ? log.liveFiles() : null;
    if (live == null) {
      throw new IllegalStateException("No Delta table at " + path + " (no _delta_log commits)");
    }
    long files = 0;
    long rows = 0;
    long withoutCount = 0;
    long bytes = 0;
    for (AddFile add : live.files()) {
      files++;
      bytes += add.size();
      long n = add.numRecords();
      if (n < 0) {
        withoutCount++;
      } else {
        rows += n;
      }
    }
    List<Txn> txns = new ArrayList<>(state.txns().values());
    txns.sort(Comparator.comparing(Txn::appId));
    long latest = state.version();
    List<LogCommit> recentCommits = log.commits(Math.max(0, latest - recent + 1), latest);
    return new TableStatus(
        path,
        latest,
        state.timestampMs(),
        state.metadata().partitionColumns(),
        files,
        rows,
        withoutCount,
        bytes,
        recentCommits.stream().map(TableStatus::commit).toList(),
        txns,
        named(log, latest, state.txns().keySet()));
  }

  private static Commit commit(LogCommit c) {
    Map<String, Object> info = c.commitInfo();
    long rows = c.adds().stream().mapToLong(a -> Math.max(0, a.numRecords())).sum();
    return new Commit(
        c.version(),
        c.timestampMs(),
        String.valueOf(info.getOrDefault("operation", "")),
        String.valueOf(info.getOrDefault("engineInfo", "")),
        c.addCount(),
        rows);
  }

  /**
   * The appId parts the connector's commits name, newest first, until every txn appId is explained
   * or {@link #MAX_COMMITS_FOR_NAMES} commits were read.
   */
  private static Set<Named> named(TableLog log, long latest, Set<String> appIds) {
    Set<Named> named = new LinkedHashSet<>();
    Set<String> unexplained = new HashSet<>(appIds);
    for (long v = latest;
        v >= 0 && v > latest - MAX_COMMITS_FOR_NAMES && !unexplained.isEmpty();
        v--) {
      for (LogCommit c : log.commits(v, v)) {
        KafkaCommitInfo info = KafkaCommitInfo.of(c);
        if (info == null) {
          continue;
        }
        for (String topic : info.topics()) {
          Named n = new Named(info.txnAppIdPrefix(), topic);
          named.add(n);
          unexplained.removeIf(id -> id.startsWith(n.prefix() + "-" + n.topic() + "-"));
        }
      }
    }
    return named;
  }
}
