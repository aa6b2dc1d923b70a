package io.kcdelta.table;

import io.kcdelta.metrics.PartitionMetrics;
import io.kcdelta.metrics.SinkMetrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Where each partition assigned to the task stands: what is durable, what was seen (to drop
 * redeliveries), where to seek when a batch is dropped, and which offsets Kafka may be told. Seeks
 * name only partitions the task still owns: Connect fails the task at its next poll when asked to
 * seek a partition that is no longer assigned.
 */
final class PartitionOffsets {
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final SinkMetrics metrics;

  /**
   * Assigned, but the table could not be read in open(): put() reads it before it takes records.
   */
  private final Map<TopicPartition, Table> unresolved = new HashMap<>();

  /** Partitions close() is closing: no longer ours to seek. */
  private Set<TopicPartition> closing = Set.of();

  PartitionOffsets(SinkMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * The partition resumes after {@code durable}, the txn version the table holds (-1: none); the
   * seek there, if any, precedes the fetch of poll {@code seekAppliesAtPoll} (0: no seek pending).
   */
  void opened(TopicPartition tp, Table table, long durable, long seekAppliesAtPoll) {
    PartitionProgress p = new PartitionProgress(table, durable, replaceMetrics(tp));
    p.seekAppliesAtPoll = seekAppliesAtPoll;
    progress.put(tp, p);
    p.publish();
    unresolved.remove(tp);
  }

  /** The partition's records choose their tables by field: it resumes at the group offset. */
  void openedRouted(TopicPartition tp) {
    PartitionProgress p = new PartitionProgress(replaceMetrics(tp));
    progress.put(tp, p);
    p.publish();
  }

  private PartitionMetrics replaceMetrics(TopicPartition tp) {
    PartitionProgress before = progress.get(tp);
    if (before != null) {
      // Its gauges go first: a second set of the same names would fail to register.
      before.metrics.close();
    }
    return metrics.forPartition(tp);
  }

  void unresolved(TopicPartition tp, Table table) {
    unresolved.put(tp, table);
  }

  /** Per table, the assigned partitions whose resume offset is not known yet. */
  Map<Table, List<TopicPartition>> unresolvedByTable() {
    Map<Table, List<TopicPartition>> byTable = new LinkedHashMap<>();
    unresolved.forEach((tp, t) -> byTable.computeIfAbsent(t, x -> new ArrayList<>()).add(tp));
    return byTable;
  }

  /** Where the partition stands, or null when it was never opened. */
  PartitionProgress of(TopicPartition tp) {
    return progress.get(tp);
  }

  /**
   * Routed partitions of the topic without a share of the table yet: their txn versions to read.
   */
  List<TopicPartition> routedWithoutLane(String topic, Table table) {
    List<TopicPartition> out = new ArrayList<>();
    progress.forEach(
        (tp, p) -> {
          if (p.routed() && tp.topic().equals(topic) && p.lane(table) == null) {
            out.add(tp);
          }
        });
    return out;
  }

  /**
   * Per partition of the table's batch, the txn version the table must still hold for this task to
   * commit.
   */
  Map<TopicPartition, Long> expectedVersions(Table table, Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> expected = new HashMap<>();
    for (TopicPartition tp : partitions) {
      expected.put(tp, progress.get(tp).lane(table).committed);
    }
    return expected;
  }

  /**
   * The gauges of these partitions, with their offsets: those of partitions writing to one table (a
   * table's commit says nothing of a routed partition's other tables).
   */
  Map<PartitionMetrics, Long> metricsOf(Map<TopicPartition, Long> offsets) {
    Map<PartitionMetrics, Long> out = new IdentityHashMap<>();
    offsets.forEach(
        (tp, o) -> {
          PartitionProgress p = progress.get(tp);
          if (!p.routed()) {
            out.put(p.metrics, o);
          }
        });
    return out;
  }

  /** The table's buffer became its batch in flight. */
  void handedIn(Table table) {
    forLanes(table, TableLane::handedIn);
  }

  /** The table's batch in flight came back to its buffer (its commit had no verdict). */
  void requeued(Table table) {
    forLanes(table, TableLane::requeued);
  }

  /**
   * The table's batch in flight is decided; these offsets are durable in the table (ours, or
   * another writer's after a fence).
   */
  void decided(Table table, Map<TopicPartition, Long> versions) {
    versions.forEach((tp, v) -> progress.get(tp).lane(table).committed = v);
    forLanes(table, lane -> lane.firstInFlight = -1);
  }

  private void forLanes(Table table, Consumer<TableLane> action) {
    for (PartitionProgress p : progress.values()) {
      TableLane lane = p.lane(table);
      if (lane != null) {
        action.accept(lane);
      }
    }
  }

  /**
   * Forgets what the table's partitions buffered since their last durable offset; returns the seeks
   * that make Connect deliver it again, for the partitions the task keeps.
   *
   * @param appliesAtPoll the first poll whose fetch the seeks will precede
   */
  Map<TopicPartition, Long> rewind(Table table, long appliesAtPoll) {
    Map<TopicPartition, Long> seeks = new HashMap<>();
    for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
      if (!closing.contains(e.getKey())) {
        long target = e.getValue().rewind(table, appliesAtPoll);
        if (target >= 0) {
          seeks.put(e.getKey(), target);
        }
      }
    }
    return seeks;
  }

  /**
   * Connect applies every seek asked so far before the fetch of poll {@code poll}: it does so right
   * after open() returns, within the rebalance of that poll.
   */
  void seeksApplyAtPoll(long poll) {
    for (PartitionProgress p : progress.values()) {
      p.seekAppliesAtPoll = Math.min(p.seekAppliesAtPoll, poll);
    }
  }

  /**
   * Only offsets durable in the Delta log go to Kafka, and only of partitions Connect asks about.
   */
  Map<TopicPartition, OffsetAndMetadata> committable(
      Map<TopicPartition, OffsetAndMetadata> current) {
    Map<TopicPartition, OffsetAndMetadata> durable = new HashMap<>();
    progress.forEach(
        (tp, p) -> {
          if (!current.containsKey(tp)) {
            return;
          }
          long next = p.routed() ? p.report() : p.lane(p.table).committed + 1;
          if (next > 0) {
            durable.put(tp, new OffsetAndMetadata(next));
          }
        });
    return durable;
  }

  /** While close() runs, these partitions are no longer sought. */
  void closing(Collection<TopicPartition> partitions) {
    closing = Set.copyOf(partitions);
  }

  void closed(Collection<TopicPartition> partitions) {
    closing = Set.of();
    for (TopicPartition tp : partitions) {
      PartitionProgress p = progress.remove(tp);
      if (p != null) {
        p.metrics.close();
      }
      unresolved.remove(tp);
    }
  }

  boolean writesTo(Table table) {
    return unresolved.containsValue(table)
        || progress.values().stream().anyMatch(p -> p.lane(table) != null);
  }

  /** Whether only partitions routed by field write to the table. */
  boolean onlyRouted(Table table) {
    return !unresolved.containsValue(table)
        && progress.values().stream().noneMatch(p -> p.table == table);
  }

  /** The table is no longer held: routed partitions read it again when a record names it. */
  void forget(Table table) {
    progress.values().forEach(p -> p.forget(table));
  }

  /** Whether the task holds partition 0 of a topic writing to the table. */
  boolean holdsFirstPartition(Table table) {
    return unresolved.entrySet().stream()
            .anyMatch(e -> e.getValue() == table && e.getKey().partition() == 0)
        || progress.entrySet().stream()
            .anyMatch(e -> e.getValue().lane(table) != null && e.getKey().partition() == 0);
  }

  /** Tells the metrics where each partition stands. */
  void publish() {
    progress.values().forEach(PartitionProgress::publish);
  }

  void clear() {
    progress.values().forEach(p -> p.metrics.close());
    progress.clear();
    unresolved.clear();
    closing = Set.of();
  }
}
