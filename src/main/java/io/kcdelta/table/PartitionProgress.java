package io.kcdelta.table;

/**
 * Where one assigned Kafka partition stands. {@code committed} is the offset of the last record whose
 * effect is durable in the Delta log (the txn version), -1 when the table holds none of this partition.
 */
final class PartitionProgress {
  long committed;
  /** Highest offset buffered, skipped or committed; anything at or below is a redelivery. */
  long lastSeen;
  /**
   * put() dropped this partition's batch and asked Connect to seek back to committed + 1; Connect does
   * so before its next fetch, so the rest of the records of the current put() must not be buffered.
   */
  boolean rewindPending;

  PartitionProgress(long committed) {
    this.committed = committed;
    this.lastSeen = committed;
  }

  void rewoundTo(long committedVersion) {
    committed = committedVersion;
    lastSeen = committedVersion;
    rewindPending = true;
  }
}
