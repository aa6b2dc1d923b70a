package io.kcdelta.table;

import io.delta.standalone.actions.Metadata;
import io.kcdelta.config.DeltaSinkConfig;
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

  /**
   * The retry budget of this table's current run of failed commits, uploads or reads (null: its
   * last attempt worked). Per table: a healthy table's commits must not renew a failing table's
   * budget.
   */
  private RetryBudget failing;

  Table(String path, Configuration conf, DeltaSinkConfig config) {
    this.state = new TableState(path, conf, config);
    this.files = new FileBuffer(state.root(), conf, config);
  }

  /** The budget of the current run of failures, started by the first of them. */
  RetryBudget failing(RetryPolicy policy, LongSupplier clock) {
    if (failing == null) {
      failing = policy.start(clock);
    }
    return failing;
  }

  /** An attempt worked: the next failure starts a new budget. */
  void healthy() {
    failing = null;
  }

  String path() {
    return state.path();
  }

  void refresh(Metadata metadata) {
    state.refresh(metadata, files.isEmpty());
  }

  /** Finishes every open file; on failure the caller must {@link #abort()}. */
  Batch drain() throws IOException {
    return files.drain(state.batchSchema(), state.partitionColumns());
  }

  void committed(Batch batch) {
    files.committed(batch);
    state.committed(batch);
  }

  /** Drops the buffered batch. */
  void abort() {
    files.abort();
    state.batchDropped();
  }
}
