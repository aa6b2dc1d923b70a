package io.kcdelta.table;

/**
 * One Kafka partition's records in one table: what the table holds of them (the txn version of the
 * partition's appId there) and what the task buffers or has in flight for it. A partition writes to
 * one table, or, routed by field, to as many as its records name; each table dedupes and fences by
 * its own txn version.
 */
final class TableLane {
  final Table table;

  /** The offset of the last record of the partition the table holds (its txn version; -1: none). */
  long committed;

  /** Highest offset buffered into the table, or committed: anything at or below is there. */
  long lastSeen;

  /** The first offset in the table's buffer (-1: none). */
  long firstBuffered = -1;

  /** The first offset in the table's batch in flight (-1: none). */
  long firstInFlight = -1;

  TableLane(Table table, long committed) {
    this.table = table;
    this.committed = committed;
    this.lastSeen = committed;
  }

  void seen(long offset) {
    lastSeen = offset;
    if (firstBuffered < 0) {
      firstBuffered = offset;
    }
  }

  /** The first offset buffered or in flight, not yet durable (-1: none). */
  long firstPending() {
    if (firstInFlight < 0) {
      return firstBuffered;
    }
    return firstBuffered < 0 ? firstInFlight : Math.min(firstBuffered, firstInFlight);
  }

  void handedIn() {
    firstInFlight = firstBuffered;
    firstBuffered = -1;
  }

  /** The batch in flight came back to the buffer, ahead of what was buffered since. */
  void requeued() {
    if (firstInFlight >= 0) {
      firstBuffered = firstInFlight;
    }
    firstInFlight = -1;
  }

  /** Forgets what is buffered or in flight; returns the highest offset that was. */
  long dropPending() {
    long before = lastSeen;
    lastSeen = committed;
    firstBuffered = -1;
    firstInFlight = -1;
    return before;
  }
}
