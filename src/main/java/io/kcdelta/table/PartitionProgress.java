package io.kcdelta.table;

/**
 * Where one assigned Kafka partition stands. {@code committed} is the offset of the last record
 * whose effect is durable in the Delta log (the txn version), -1 when the table holds none of this
 * partition.
 */
final class PartitionProgress {
  /** The table the partition writes to. */
  final Table table;

  long committed;

  /** Highest offset buffered, skipped or committed; anything at or below is a redelivery. */
  long lastSeen;

  /**
   * The first offset received since open (-1: none yet). With nothing committed, it is where a
   * dropped batch must be re-read from: Kafka's group offset was never advanced past it.
   */
  long firstReceived = -1;

  /**
   * This task asked Connect to seek the partition back to its last durable offset; Connect applies
   * it only before its next fetch. Until then every record of the partition it delivers is stale:
   * the rest of the current put(), a redelivery of the same batch after a RetriableException, and
   * the batch fetched while close() of other partitions asked for the seek. Cleared when a put()
   * returns normally.
   */
  boolean rewindPending;

  final PartitionMetrics metrics;

  PartitionProgress(Table table, long committed, PartitionMetrics metrics) {
    this.table = table;
    this.committed = committed;
    this.lastSeen = committed;
    this.metrics = metrics;
  }

  void publish() {
    metrics.update(committed, lastSeen);
  }

  /** True for a record already buffered, skipped or committed, or stale until a seek applies. */
  boolean isRedelivery(long offset) {
    if (rewindPending || offset <= lastSeen) {
      return true;
    }
    if (firstReceived < 0) {
      firstReceived = offset;
    }
    return false;
  }

  /** The record is in the table's batch (as a row, or as processed without one). */
  void seen(long offset) {
    lastSeen = offset;
  }

  /**
   * Forgets everything after the last durable offset; returns where to seek (-1: no seek needed).
   */
  long rewind() {
    lastSeen = committed;
    long target = committed >= 0 ? committed + 1 : firstReceived;
    // Without a target nothing was received since open(): no seek, and what comes next is not
    // stale.
    rewindPending = target >= 0;
    return target;
  }
}
