package io.kcdelta.table;

import io.kcdelta.metrics.PartitionMetrics;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where one assigned Kafka partition stands, per table it writes to ({@link TableLane}).
 *
 * <p>Its records go to one table (the topic's), whose txn version says where the partition resumes;
 * or, routed by field, to as many tables as their values name. Then no table says where the
 * partition resumes: it resumes where the consumer group's offset says, and that offset only moves
 * to what is durable in every table (or reported errant); each table still drops what it holds
 * already and fences other writers by its own txn version.
 */
final class PartitionProgress {
  /** The table the partition writes to; null when its records choose their tables by field. */
  final Table table;

  private final Map<Table, TableLane> lanes = new LinkedHashMap<>();

  /**
   * The first offset received since open (-1: none yet). Routed by field, everything below it is
   * durable: Connect fetched from the group offset, which {@link #durableThrough} never passes.
   * With one table and nothing committed, it is where a dropped batch must be re-read from: Kafka's
   * group offset was never advanced past it.
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

  /** Routed by field: the highest offset processed (buffered, skipped or reported errant). */
  private long maxSeen = -1;

  /**
   * Routed by field, after a table's batch was dropped: offsets from {@code holdFrom} are not all
   * durable until the partition is read again up to {@code holdUntil} (-1: no hold).
   */
  private long holdFrom = -1;

  private long holdUntil = -1;

  /** Routed by field: the last offset told to Kafka (-1: none); it never goes back. */
  private long reported = -1;

  /**
   * Routed by field: where Connect delivers the partition next, as far as the task knows: after the
   * last record received, or at the last seek asked (-1: nothing received). A seek never goes past
   * it: the records in between may belong to other tables that still need them, whether they follow
   * a seek not applied yet (Connect keeps only the last seek asked) or are being read again after
   * one.
   */
  private long position = -1;

  final PartitionMetrics metrics;

  /** A partition writing to one table, which holds it up to {@code committed}. */
  PartitionProgress(Table table, long committed, PartitionMetrics metrics) {
    this.table = table;
    this.metrics = metrics;
    lanes.put(table, new TableLane(table, committed));
  }

  /** A partition whose records choose their tables by field. */
  PartitionProgress(PartitionMetrics metrics) {
    this.table = null;
    this.metrics = metrics;
  }

  boolean routed() {
    return table == null;
  }

  /** Its share of the table (null: none known yet). */
  TableLane lane(Table t) {
    return lanes.get(t);
  }

  TableLane addLane(Table t, long committed) {
    TableLane lane = new TableLane(t, committed);
    lanes.put(t, lane);
    return lane;
  }

  Collection<TableLane> lanes() {
    return lanes.values();
  }

  /** Forgets its share of a table the task no longer holds (nothing of it pending). */
  void forget(Table t) {
    lanes.remove(t);
  }

  void publish() {
    if (routed()) {
      long through = durableThrough();
      metrics.update(through > 0 ? through - 1 : -1, maxSeen);
    } else {
      TableLane lane = lanes.get(table);
      metrics.update(lane.committed, lane.lastSeen);
    }
  }

  /** True for a record fetched before the last seek applied. */
  boolean isStale(long fetchedInPoll) {
    return fetchedInPoll < seekAppliesAtPoll;
  }

  /**
   * True for a record already buffered, skipped or committed in the lane's table, or fetched before
   * the last seek applied.
   *
   * @param fetchedInPoll the poll whose fetch delivered the record first
   */
  boolean isRedelivery(TableLane lane, long offset, long fetchedInPoll) {
    if (isStale(fetchedInPoll) || offset <= lane.lastSeen) {
      return true;
    }
    if (firstReceived < 0) {
      firstReceived = offset;
    }
    return false;
  }

  /** Routed by field: a fresh record arrived (before it is routed). */
  void received(long offset) {
    position = offset + 1;
    if (firstReceived < 0) {
      firstReceived = offset;
    }
  }

  /** Routed by field: whether the record was processed already (e.g. reported errant). */
  boolean processedBefore(long offset) {
    return offset <= maxSeen;
  }

  /** Routed by field: the record is done with (buffered into its table, skipped, reported). */
  void processed(long offset) {
    maxSeen = Math.max(maxSeen, offset);
    if (holdUntil >= 0 && offset >= holdUntil) {
      holdFrom = -1;
      holdUntil = -1;
    }
  }

  /**
   * Routed by field: the offset below which every record is durable in its table or reported errant
   * (-1: nothing known since open).
   */
  long durableThrough() {
    if (maxSeen < 0) {
      return reported;
    }
    long through = maxSeen + 1;
    if (holdFrom >= 0) {
      through = Math.min(through, holdFrom);
    }
    for (TableLane lane : lanes.values()) {
      long pending = lane.firstPending();
      if (pending >= 0) {
        through = Math.min(through, pending);
      }
    }
    return Math.max(through, reported);
  }

  /** Routed by field: {@link #durableThrough}, now told to Kafka. */
  long report() {
    reported = durableThrough();
    return reported;
  }

  /**
   * Routed by field: the record at {@code offset} was not taken (its table's batch was dropped as
   * it was written); returns where to seek so that it comes again.
   */
  long rereadFrom(long offset, long appliesAtPoll) {
    long target = reread(offset, offset);
    seekAppliesAtPoll = Math.max(seekAppliesAtPoll, appliesAtPoll);
    return target;
  }

  /**
   * Routed by field: offsets from {@code target} are read again, and are not all durable until
   * {@code upTo} is processed again; returns the seek that covers this and any seek asked before.
   */
  private long reread(long target, long upTo) {
    if (position >= 0) {
      target = Math.min(target, position);
    }
    position = target;
    if (holdFrom < 0 || target < holdFrom) {
      holdFrom = target;
    }
    holdUntil = Math.max(holdUntil, upTo);
    return target;
  }

  /**
   * Forgets what the table buffered of the partition since its last durable offset; returns where
   * to seek (-1: no seek needed).
   *
   * @param appliesAtPoll the first poll whose fetch the seek will precede
   */
  long rewind(Table t, long appliesAtPoll) {
    TableLane lane = lanes.get(t);
    if (lane == null) {
      return -1;
    }
    long lastBuffered = lane.dropPending();
    long target;
    if (routed()) {
      if (lastBuffered <= lane.committed || firstReceived < 0) {
        return -1; // nothing of this partition was pending in the table
      }
      // Below the group offset (firstReceived) and below what Kafka was told, all is durable.
      target =
          reread(Math.max(Math.max(lane.committed + 1, firstReceived), reported), lastBuffered);
    } else {
      target = lane.committed >= 0 ? lane.committed + 1 : firstReceived;
    }
    // Without a target nothing was received since open(): no seek, and what comes next is not
    // stale.
    if (target >= 0) {
      seekAppliesAtPoll = Math.max(seekAppliesAtPoll, appliesAtPoll);
    }
    return target;
  }
}
