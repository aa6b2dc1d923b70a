package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.internal.DeltaLogImpl;
import io.delta.standalone.internal.OptimisticTransactionImpl;
import io.delta.standalone.internal.SnapshotImpl;
import io.delta.standalone.internal.actions.SingleAction;
import io.delta.standalone.internal.util.JsonUtils;
import io.delta.storage.CloseableIterator;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The txn versions of a table's appIds as of a transaction's read version, kept from one
 * transaction to the next and brought forward by reading only the commits made in between.
 *
 * <p>Why: Delta Standalone answers {@code txnVersion} from the snapshot's full state, which it
 * builds for every new snapshot: the last checkpoint and every commit since, on a new fork-join
 * pool each time. A commit group starts a transaction per round, and each round sees a new
 * snapshot, so that rebuild was most of a commit's time in the group bench's profile, for state the
 * commit does not need: it needs only the txn versions. Folding the commits since the last round
 * into the versions known then gives the same answer, because Delta's replay of the log also lets
 * an appId's last {@code txn} action win and expires none.
 *
 * <p>The appIds are registered as read in the transaction, as {@code txnVersion} does, so Delta's
 * conflict check still refuses the commit if a concurrent one set any of them.
 *
 * <p>Uses Delta Standalone 3.3.2 internals (pinned by the dependency): the transaction's read
 * appIds, the log's store, its action parser, and the snapshot's transactions.
 */
final class TxnVersions {
  /** More commits than this since the known version: take the snapshot's state instead. */
  private static final int MAX_COMMITS_FOLDED = 50;

  /** The log version {@link #known} is as of (-1: none yet). */
  private long knownVersion = -1;

  private Map<String, Long> known = Map.of();

  /**
   * The txn versions of {@code appIds} as of the transaction's read version (-1: none), registered
   * as read by the transaction.
   */
  Map<String, Long> read(DeltaLog log, OptimisticTransaction txn, Set<String> appIds) {
    Map<String, Long> all = at((DeltaLogImpl) log, txn.readVersion());
    Map<String, Long> versions = new HashMap<>();
    for (String appId : appIds) {
      ((OptimisticTransactionImpl) txn).readTxn().addOne(appId);
      versions.put(appId, all.getOrDefault(appId, -1L));
    }
    return versions;
  }

  /** Every appId's txn version as of log version {@code version}. */
  private Map<String, Long> at(DeltaLogImpl log, long version) {
    if (version < 0) {
      return Map.of();
    }
    long fromVersion;
    Map<String, Long> from;
    synchronized (this) {
      fromVersion = knownVersion;
      from = known;
    }
    if (fromVersion == version) {
      return from;
    }
    Map<String, Long> versions = null;
    if (fromVersion >= 0 && fromVersion < version && version - fromVersion <= MAX_COMMITS_FOLDED) {
      versions = folded(log, from, fromVersion + 1, version);
    }
    if (versions == null) {
      versions = ofSnapshot(log, version);
    }
    Map<String, Long> result = Collections.unmodifiableMap(versions);
    synchronized (this) {
      // A read and a commit of the group may race; keep the newer.
      if (version > knownVersion) {
        knownVersion = version;
        known = result;
      }
    }
    return result;
  }

  /**
   * {@code from} with the txn actions of commits {@code first}..{@code last} applied in order
   * (null: one of them is gone, e.g. removed by the log's cleanup).
   */
  private static Map<String, Long> folded(
      DeltaLogImpl log, Map<String, Long> from, long first, long last) {
    Map<String, Long> versions = new HashMap<>(from);
    for (long v = first; v <= last; v++) {
      Path commit = new Path(log.logPath(), String.format("%020d.json", v));
      try (CloseableIterator<String> lines = log.store().read(commit, log.hadoopConf())) {
        while (lines.hasNext()) {
          String line = lines.next();
          // A txn action's line has "txn" as its key: parse only the lines that could be one.
          if (line.contains("\"txn\"")
              && JsonUtils.mapper().readValue(line, SingleAction.class).unwrap()
                  instanceof io.delta.standalone.internal.actions.SetTransaction txn) {
            versions.put(txn.appId(), txn.version());
          }
        }
      } catch (FileNotFoundException e) {
        return null;
      } catch (IOException e) {
        // As Unchecked does for Delta Standalone's own reads: the task's retry policy decides.
        throw new UncheckedIOException(e.getMessage(), e);
      }
    }
    return versions;
  }

  /** From the snapshot's whole state, as Delta Standalone's own {@code txnVersion} reads it. */
  private static Map<String, Long> ofSnapshot(DeltaLogImpl log, long version) {
    SnapshotImpl current = log.snapshot();
    SnapshotImpl snapshot =
        current.version() == version
            ? current
            : (SnapshotImpl) log.getSnapshotForVersionAsOf(version);
    Map<String, Long> versions = new HashMap<>();
    for (SetTransaction txn : CollectionConverters.asJava(snapshot.setTransactions())) {
      versions.put(txn.getAppId(), txn.getVersion());
    }
    return versions;
  }
}
