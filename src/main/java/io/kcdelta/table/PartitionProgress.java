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
   * The first offset received since open (-1: none yet). With nothing committed, it is where a dropped
   * batch must be re-read from: Kafka's group offset was never advanced past it.
   */
  long firstReceived = -1;
  /**
   * put() dropped this partition's batch and asked Connect to seek back to committed + 1; Connect does
   * so before its next fetch, so the rest of the records of the current put() must not be buffered.
   */
  boolean rewindPending;

  PartitionProgress(long committed) {
    this.committed = committed;
    this.lastSeen = committed;
  }

  /** Forgets everything after the last durable offset; returns where to seek (-1: no seek needed). */
  long rewind() {
    lastSeen = committed;
    rewindPending = true;
    return committed >= 0 ? committed + 1 : firstReceived;
  }
}
