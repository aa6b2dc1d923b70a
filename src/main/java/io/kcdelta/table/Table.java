package io.kcdelta.table;

import io.delta.standalone.actions.Metadata;
import io.kcdelta.config.DeltaSinkConfig;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/** One target table of a task: what it knows of the table, and the rows buffered for its next commit. */
final class Table {
  final TableState state;
  final FileBuffer files;
  /**
   * When this table's current run of failed commits or uploads started (-1: its last attempt worked).
   * Per table: a healthy table's commits must not reset a failing table's retry budget.
   */
  long failingSinceMs = -1;

  Table(String path, Configuration conf, DeltaSinkConfig config) {
    this.state = new TableState(path, conf, config);
    this.files = new FileBuffer(state.root(), conf, config);
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
