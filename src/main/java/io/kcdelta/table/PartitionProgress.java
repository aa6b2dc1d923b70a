package io.kcdelta.table;

import io.kcdelta.metrics.PartitionMetrics;

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
   * The first poll whose fetched records follow this task's last seek of the partition (0: no seek
   * asked). Connect applies a seek at the start of its next poll, or right after an open() in the
   * same rebalance, never in the middle of a poll: a record fetched by an earlier poll is stale.
   * That is the rest of the put() that asked for the seek, a redelivery of the same batch after a
   * RetriableException, and a batch fetched while close() of other partitions asked for the seek
   * without an open() after it. Records fetched by that poll or later are fresh, even in the put()
   * right after a RetriableException (when a revocation emptied the retained batch, Connect fetches
   * anew): taking those as stale lost them (issue 35, seed 14709).
   */
  long seekAppliesAtPoll;

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

  /**
   * True for a record already buffered, skipped or committed, or fetched before the last seek
   * applied.
   *
   * @param fetchedInPoll the poll whose fetch delivered the record first
   */
  boolean isRedelivery(long offset, long fetchedInPoll) {
    if (fetchedInPoll < seekAppliesAtPoll || offset <= lastSeen) {
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
   *
   * @param appliesAtPoll the first poll whose fetch the seek will precede
   */
  long rewind(long appliesAtPoll) {
    lastSeen = committed;
    long target = committed >= 0 ? committed + 1 : firstReceived;
    // Without a target nothing was received since open(): no seek, and what comes next is not
    // stale.
    if (target >= 0) {
      seekAppliesAtPoll = Math.max(seekAppliesAtPoll, appliesAtPoll);
    }
    return target;
  }
}
