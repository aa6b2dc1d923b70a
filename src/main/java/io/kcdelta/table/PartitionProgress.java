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
   * A seek back to committed + 1 was requested during this poll cycle: records of this poll that still
   * arrive come from the old position and must not be buffered (the seek re-delivers them in order).
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
