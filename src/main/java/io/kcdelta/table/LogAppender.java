package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.Protocol;
import io.delta.standalone.actions.SetTransaction;
import io.delta.storage.LogStore;
import io.kcdelta.config.HadoopConfigurationFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Writes a blind append (files and txn actions, no metadata) straight through the table's log
 * store, and rebases it when another writer took the version by reading only the commits made
 * since.
 *
 * <p>Why: when many writers in different JVMs share a table, most commit attempts lose. Delta
 * Standalone answers every lost attempt with a new snapshot of the whole table (a listing, the
 * checkpoint read and parsed again) and a second one after the winning attempt. Here a lost attempt
 * costs the listing and the few commit files it missed ({@link DeltaLog#getChanges}); their actions
 * tell whether the append still holds.
 *
 * <p>What the append depends on is what its transaction read: the table's metadata and protocol,
 * and the txn versions of its own appIds (the fencing check). A commit that touches none of those
 * (files added or removed, other partitions' txns) cannot change the outcome, exactly as Delta's
 * conflict check for a blind append decides; a commit that touches one ends the rebase ({@link
 * Stale}) and the caller starts over with a fresh transaction, which sees it.
 *
 * <p>Versions that are due a checkpoint are left to Delta Standalone's own commit, which writes the
 * checkpoint after it wins one.
 */
final class LogAppender {
  /** Rebases of one append before its caller starts over with a fresh transaction. */
  static final int MAX_REBASES = 32;

  private static final String CHECKPOINT_INTERVAL = "delta.checkpointInterval";
  private static final int DEFAULT_CHECKPOINT_INTERVAL = 10;

  private final DeltaLog log;
  private final LogStore store;
  private final Configuration conf;
  private final Path logPath;

  private LogAppender(DeltaLog log, LogStore store, Configuration conf, Path root) {
    this.log = log;
    this.store = store;
    this.conf = conf;
    this.logPath = new Path(root, "_delta_log");
  }

  /**
   * An appender for the table, or null when its log store is not listed in {@link
   * HadoopConfigurationFactory#SHARED_LOG_STORES} (a second instance of it might not exclude the
   * DeltaLog's own writes): then every commit goes through Delta Standalone.
   */
  static LogAppender forTable(DeltaLog log, Configuration conf, Path root) {
    String scheme = root.toUri().getScheme();
    if (scheme == null || conf.get("delta.logStore.class") != null) {
      return null;
    }
    String impl = conf.get("delta.logStore." + scheme + ".impl");
    if (impl == null) {
      impl = conf.get("spark.delta.logStore." + scheme + ".impl");
    }
    if (impl == null
        || !conf.getTrimmedStringCollection(HadoopConfigurationFactory.SHARED_LOG_STORES)
            .contains(impl.trim())) {
      return null;
    }
    try {
      Class<?> type = conf.getClassByName(impl.trim());
      if (!LogStore.class.isAssignableFrom(type)) {
        return null;
      }
      LogStore store = (LogStore) type.getConstructor(Configuration.class).newInstance(conf);
      return new LogAppender(log, store, conf, root);
    } catch (ReflectiveOperationException e) {
      // Delta Standalone reports a store it cannot make when it opens the log.
      return null;
    }
  }

  sealed interface Result permits Landed, Stale {}

  /**
   * The append is version {@code version}, after {@code rebases} lost attempts.
   *
   * @param rebases lost attempts before it
   */
  record Landed(long version, int rebases) implements Result {}

  /** Version {@code version} (or too many rebases) needs a fresh transaction; nothing written. */
  record Stale(long version, String why) implements Result {}

  /**
   * Whether the transaction's next version is for this appender: the table exists and that version
   * is not due a checkpoint.
   */
  boolean takes(OptimisticTransaction txn) {
    long next = txn.readVersion() + 1;
    return txn.readVersion() >= 0 && next % checkpointInterval(txn.metadata()) != 0;
  }

  /**
   * Writes the commit at the transaction's next version, or the first one after it that no other
   * writer took, as long as the commits in between leave it valid.
   *
   * @param lines the commit file, its readVersion being the transaction's
   * @param appIds the txn appIds the append read and writes
   */
  Result append(OptimisticTransaction txn, List<String> lines, Set<String> appIds) {
    int interval = checkpointInterval(txn.metadata());
    long version = txn.readVersion() + 1;
    for (int rebases = 0; ; rebases++) {
      if (version % interval == 0) {
        return new Stale(version, "a checkpoint is due");
      }
      try {
        store.write(deltaFile(version), lines.iterator(), false, conf);
        return new Landed(version, rebases);
      } catch (FileAlreadyExistsException e) {
        if (rebases >= MAX_REBASES) {
          return new Stale(version, "lost " + (rebases + 1) + " attempts");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage(), e);
      }
      long lost = version;
      long latest = -1;
      Iterator<VersionLog> changes = Unchecked.call(() -> log.getChanges(lost, true));
      while (changes.hasNext()) {
        VersionLog commit = changes.next();
        String conflict = conflict(commit.getActions(), appIds);
        if (conflict != null) {
          return new Stale(commit.getVersion(), conflict);
        }
        latest = Math.max(latest, commit.getVersion());
      }
      if (latest < lost) {
        // The version exists but was not listed: its actions are unknown.
        return new Stale(lost, "version " + lost + " was taken but not listed yet");
      }
      version = latest + 1;
    }
  }

  /** What in a concurrent commit invalidates the append (null: nothing). */
  private static String conflict(List<Action> actions, Set<String> appIds) {
    for (Action a : actions) {
      if (a instanceof Metadata) {
        return "the table's metadata changed";
      }
      if (a instanceof Protocol) {
        return "the table's protocol changed";
      }
      if (a instanceof SetTransaction t && appIds.contains(t.getAppId())) {
        return "another writer committed " + t.getAppId();
      }
    }
    return null;
  }

  private Path deltaFile(long version) {
    return new Path(logPath, String.format("%020d.json", version));
  }

  private static int checkpointInterval(Metadata metadata) {
    String value = metadata.getConfiguration().get(CHECKPOINT_INTERVAL);
    try {
      int interval = value == null ? DEFAULT_CHECKPOINT_INTERVAL : Integer.parseInt(value.trim());
      return interval > 0 ? interval : DEFAULT_CHECKPOINT_INTERVAL;
    } catch (NumberFormatException e) {
      return DEFAULT_CHECKPOINT_INTERVAL;
    }
  }
}
