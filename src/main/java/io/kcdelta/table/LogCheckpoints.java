package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.internal.DeltaLogImpl;
import io.delta.standalone.internal.SnapshotImpl;
import java.util.concurrent.Executor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the checkpoints of the versions a commit group commits, handed to an executor (in a
 * worker: a background thread) instead of inside the commit.
 *
 * <p>Why: Delta Standalone writes the checkpoint of every tenth version inside {@code commit()}, on
 * the committing thread. That thread is a task's, and the group's other members wait for its round:
 * in the group bench the checkpoint versions were the tail of the commit latency (10–13 s against a
 * p50 of 3.5 s). A checkpoint only makes reading the log cheaper; a late or missing one changes no
 * table state. So the group's commit log is opened with Standalone's checkpointing off ({@link
 * #forCommits}), and this writes the checkpoint of each version the group committed that Delta's
 * own rule picks: a multiple of the table's {@code delta.checkpointInterval} (default 10), the rule
 * by which Standalone and Spark writers pick theirs, so two writers never checkpoint the same
 * version.
 *
 * <p>At most one checkpoint of the table is written at a time. A version that becomes due while one
 * is written replaces the one waiting, if any: readers start from the newest checkpoint, so an
 * older one would be work for nobody.
 */
final class LogCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(LogCheckpoints.class);

  /** Delta Standalone's switch for the checkpoints it writes in commit() (and in checkpoint()). */
  static final String STANDALONE_CHECKPOINTING = "io.delta.standalone.checkpointing.enabled";

  private final Path root;
  private final Configuration conf;
  private final Executor executor;

  private final Object lock = new Object();

  /**
   * A version due for a checkpoint, and the commit log's snapshot of it when the commit left it
   * current (else null).
   */
  private record Due(long version, SnapshotImpl snapshot) {}

  /** The checkpoint due and not started yet (null: none). */
  private Due waiting;

  private boolean writing;

  /** Writes the checkpoints, with checkpointing as the connector's Hadoop settings say. */
  private DeltaLogImpl writer;

  /**
   * @param conf the connector's Hadoop settings ({@code hadoop.io.delta.standalone.checkpointing.
   *     enabled=false} turns checkpoints off, as it does for Standalone)
   */
  LogCheckpoints(Path root, Configuration conf, Executor executor) {
    this.root = root;
    this.conf = conf;
    this.executor = executor;
  }

  /** The settings for the log the group commits through: no checkpoint inside a commit. */
  static Configuration forCommits(Configuration conf) {
    Configuration commits = new Configuration(conf);
    commits.setBoolean(STANDALONE_CHECKPOINTING, false);
    return commits;
  }

  /**
   * {@code log} (the group's commit log) committed {@code version}. Never throws: the commit is
   * done, whatever becomes of its checkpoint.
   */
  void committed(DeltaLog log, long version) {
    try {
      if (version <= 0 || version % ((DeltaLogImpl) log).checkpointInterval() != 0) {
        return;
      }
    } catch (RuntimeException e) {
      LOG.warn("No checkpoint of version {} of {}: {}", version, root, e.toString());
      return;
    }
    // Right after the commit the log's current snapshot is usually the committed version's: its
    // state, built once for the checkpoint, then also serves the next read if no commit came
    // between, and the checkpoint needs no listing of the log to find the version again.
    Snapshot current = log.snapshot();
    synchronized (lock) {
      if (waiting == null || version > waiting.version()) {
        waiting = new Due(version, current.getVersion() == version ? (SnapshotImpl) current : null);
      }
      if (writing) {
        return;
      }
      writing = true;
    }
    executor.execute(() -> writeWaiting(log));
  }

  private void writeWaiting(DeltaLog log) {
    try {
      writeUntilNoneWaits(log);
    } catch (Throwable e) {
      // Not caught by write (an Error such as OutOfMemoryError): the next due version starts anew.
      synchronized (lock) {
        writing = false;
      }
      throw e;
    }
  }

  private void writeUntilNoneWaits(DeltaLog log) {
    while (true) {
      Due due;
      synchronized (lock) {
        due = waiting;
        waiting = null;
        if (due == null) {
          writing = false;
          return;
        }
      }
      write(log, due);
    }
  }

  private void write(DeltaLog log, Due due) {
    long version = due.version();
    long started = System.nanoTime();
    try {
      Unchecked.call(
          () -> {
            SnapshotImpl snapshot =
                due.snapshot() != null
                    ? due.snapshot()
                    : (SnapshotImpl) log.getSnapshotForVersionAsOf(version);
            writer().checkpoint(snapshot);
            return null;
          });
      LOG.info(
          "Wrote the checkpoint of version {} of {} in {} ms",
          version,
          root,
          (System.nanoTime() - started) / 1_000_000);
    } catch (RuntimeException | LinkageError e) {
      // Readers replay more log files until the next checkpoint; nothing else depends on it.
      LOG.warn(
          "Could not write the checkpoint of version {} of {}; the next due version gets one",
          version,
          root,
          e);
    }
  }

  /**
   * The log that writes the checkpoint, brought up to date: after the checkpoint it deletes expired
   * log files as its current snapshot's table properties say ({@code delta.logRetentionDuration},
   * {@code delta.enableExpiredLogCleanup}), which may have changed since it was opened.
   */
  private DeltaLogImpl writer() {
    if (writer == null) {
      writer = (DeltaLogImpl) DeltaLog.forTable(conf, root);
    } else {
      writer.update();
    }
    return writer;
  }
}
