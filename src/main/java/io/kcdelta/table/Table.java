package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.metrics.TableMetrics;
import io.kcdelta.record.TableState;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import java.io.IOException;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;

/**
 * One target table of a task: what it knows of the table, and the rows buffered for its next
 * commit.
 */
final class Table {
  final TableState state;
  final FileBuffer files;

  /** Commits this table's batches, together with those of the connector's other tasks here. */
  final CommitGroup group;

  /** The batch handed to the group whose outcome this task has not taken yet (null: none). */
  CommitGroup.Entry inFlight;

  /**
   * The retry budget of this table's current run of failed commits, uploads or reads (null: its
   * last attempt worked). Per table: a healthy table's commits must not renew a failing table's
   * budget.
   */
  private RetryBudget failing;

  /** The service of the current run of failures' first failure. */
  private SinkMetrics.Service failingService;

  private final CommitGroups groups;

  final TableMetrics metrics;

  /** When the oldest record not durable yet was taken, buffered or in flight (-1: none). */
  private long pendingSinceMs = -1;

  Table(
      String path,
      Configuration conf,
      DeltaSinkConfig config,
      CommitGroups groups,
      TableMetrics metrics,
      OpenFileBudget budget) {
    this.state = new TableState(path, config);
    this.files = new FileBuffer(state.root(), conf, config, groups.finisher(), budget);
    this.groups = groups;
    this.group = groups.join(this, path, conf, config);
    this.metrics = metrics;
  }

  /** Tells the group how long this task's rows not handed in yet have waited. */
  void reportBuffered() {
    group.buffered(this, files.isEmpty() ? -1 : files.oldestRecordMs());
  }

  /** Tells the metrics what the task holds for the table. */
  void publish() {
    metrics.holding(pendingSinceMs, files.openFiles(), files.rows(), files.bytes());
  }

  /** When a record last named the table (-1: none). */
  private long lastNamedMs = -1;

  /** A record named the table at {@code nowMs} (taken, or dropped as held already). */
  void named(long nowMs) {
    lastNamedMs = nowMs;
  }

  /** A record was taken for the table at {@code nowMs}. */
  void received(long nowMs) {
    lastNamedMs = nowMs;
    if (pendingSinceMs < 0) {
      pendingSinceMs = nowMs;
    }
  }

  /** Nothing buffered or in flight, and no record taken for {@code idleMs} until {@code nowMs}. */
  boolean idleSince(long nowMs, long idleMs) {
    return files.isEmpty() && inFlight == null && nowMs - lastNamedMs >= idleMs;
  }

  /**
   * The batch in flight was decided, or the buffer dropped: what is pending is what is buffered.
   */
  void decided() {
    if (files.isEmpty()) {
      pendingSinceMs = -1;
    } else if (files.oldestRecordMs() > 0) {
      pendingSinceMs = files.oldestRecordMs();
    }
  }

  /**
   * Whether this task maintains the table (compaction, orphan cleanup): it holds partition 0 of a
   * topic writing to it, which exactly one task of the connector does per topic.
   */
  void maintains(boolean maintains) {
    groups.maintainer(this, group, maintains);
  }

  /** The task writes no more to this table. */
  void leave() {
    groups.leave(this, group);
    metrics.idle();
  }

  /** The budget of the current run of failures, started by the first of them. */
  RetryBudget failing(RetryPolicy policy, LongSupplier clock, SinkMetrics.Service service) {
    if (failing == null) {
      failing = policy.start(clock);
      failingService = service;
      metrics.failing(failing.startedAtMillis());
    }
    return failing;
  }

  /** An attempt worked: the next failure starts a new budget. */
  void healthy() {
    if (failing != null) {
      metrics.recovered(failingService, failing.elapsedMillis());
      failing = null;
    }
  }

  String path() {
    return state.path();
  }

  void refresh(DeltaCommitter.LogRead read) {
    state.refresh(read.metadata(), read.statsColumns(), files.isEmpty() && inFlight == null);
  }

  /** Finishes every open file; on failure the caller must {@link #abort()}. */
  Batch drain() throws IOException {
    return files.drain(state.batchSchema(), state.partitionColumns());
  }

  void committed(Batch batch) {
    files.committed(batch);
    state.committed(batch.schema(), batch.partitionColumns());
  }

  /** Drops the buffered batch. */
  void abort() {
    files.abort();
    state.batchDropped();
    decided();
  }
}
