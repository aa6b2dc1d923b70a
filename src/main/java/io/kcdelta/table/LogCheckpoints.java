package io.kcdelta.table;

import io.kcdelta.delta.LogState;
import io.kcdelta.delta.TableLog;
import java.util.concurrent.Executor;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the checkpoints of the versions a commit group commits, handed to an executor (in a
 * worker: a background thread) instead of inside the commit.
 *
 * <p>Why: the committing thread is a task's, and the group's other members wait for its round; a
 * checkpoint inside the commit made the checkpoint versions the tail of the commit latency. A
 * checkpoint only makes reading the log cheaper; a late or missing one changes no table state. So
 * this writes the checkpoint of each version the group committed that Delta's own rule picks: a
 * multiple of the table's {@code delta.checkpointInterval} (default 10), the rule by which Spark
 * writers pick theirs, so two writers rarely checkpoint the same version.
 *
 * <p>At most one checkpoint of the table is written at a time. A version that becomes due while one
 * is written replaces the one waiting, if any: readers start from the newest checkpoint, so an
 * older one would be work for nobody.
 */
final class LogCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(LogCheckpoints.class);

  /**
   * The Hadoop setting ({@code hadoop.kcdelta.checkpoints.enabled}) that turns the connector's
   * checkpoints off; the name of Delta Standalone's switch is still read.
   */
  static final String ENABLED = "kcdelta.checkpoints.enabled";

  static final String STANDALONE_ENABLED = "io.delta.standalone.checkpointing.enabled";

  private final TableLog log;
  private final Executor executor;
  private final boolean enabled;

  private final Object lock = new Object();

  /** The version due for a checkpoint and not started yet (-1: none). */
  private long waiting = -1;

  private boolean writing;

  LogCheckpoints(TableLog log, Configuration conf, Executor executor) {
    this.log = log;
    this.executor = executor;
    this.enabled = conf.getBoolean(ENABLED, conf.getBoolean(STANDALONE_ENABLED, true));
  }

  /**
   * The group's log committed {@code version}. Never throws: the commit is done, whatever becomes
   * of its checkpoint.
   */
  void committed(long version) {
    try {
      LogState state = log.cached();
      if (!enabled || state == null || !log.checkpointDue(version, state.metadata())) {
        return;
      }
    } catch (RuntimeException e) {
      LOG.warn("No checkpoint of version {} of {}: {}", version, log.path(), e.toString());
      return;
    }
    synchronized (lock) {
      waiting = Math.max(waiting, version);
      if (writing) {
        return;
      }
      writing = true;
    }
    executor.execute(this::writeWaiting);
  }

  private void writeWaiting() {
    try {
      writeUntilNoneWaits();
    } catch (Throwable e) {
      // Not caught by write (an Error such as OutOfMemoryError): the next due version starts anew.
      synchronized (lock) {
        writing = false;
      }
      throw e;
    }
  }

  private void writeUntilNoneWaits() {
    while (true) {
      long version;
      synchronized (lock) {
        version = waiting;
        waiting = -1;
        if (version < 0) {
          writing = false;
          return;
        }
      }
      write(version);
    }
  }

  private void write(long version) {
    long started = System.nanoTime();
    try {
      boolean written = log.checkpoint(version);
      LOG.info(
          "{} the checkpoint of version {} of {} in {} ms",
          written ? "Wrote" : "Found",
          version,
          log.path(),
          (System.nanoTime() - started) / 1_000_000);
    } catch (Exception | LinkageError e) {
      // Readers replay more log files until the next checkpoint; nothing else depends on it.
      LOG.warn(
          "Could not write the checkpoint of version {} of {}; the next due version gets one",
          version,
          log.path(),
          e);
    }
  }
}
