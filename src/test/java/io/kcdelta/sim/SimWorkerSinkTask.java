package io.kcdelta.sim;

import io.kcdelta.table.DeltaSinkWriter;
import io.kcdelta.table.FakeSinkContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.MDC;

/**
 * Connect's {@code WorkerSinkTask} (connect-runtime 3.0–4.3) for one task instance, reduced to what
 * the sink can observe, with its consumer folded in:
 *
 * <ul>
 *   <li>poll() first applies the seeks the task asked for ({@code rewind()}: a bare consumer.seek,
 *       which throws IllegalStateException for a partition no longer assigned), then runs the
 *       rebalance callbacks, then fetches, then delivers;
 *   <li>put() throwing RetriableException pauses everything and the SAME retained batch is
 *       delivered again on the next poll, not filtered by seeks, only by revocation;
 *   <li>revocation calls preCommit then close(revoked) (eager: everything; cooperative: a subset);
 *       assignment calls open(assigned) and applies the seeks right away;
 *   <li>offsets are committed to the group from preCommit every few iterations, only up to what was
 *       delivered;
 *   <li>a crash runs neither close() nor stop().
 * </ul>
 */
final class SimWorkerSinkTask {
  /** The group's side of the protocol, as the member sees it during a poll. */
  interface Group {
    /** Runs the rebalance callbacks this member is due for. */
    void rebalance(SimWorkerSinkTask member);

    void commit(SimWorkerSinkTask member, Map<TopicPartition, OffsetAndMetadata> offsets);

    long position(TopicPartition tp);
  }

  final String name;
  private final SimKafka kafka;
  private final Group group;

  /** What the task asks of Connect: seeks (applied at the next poll), errant records. */
  final FakeSinkContext context = new FakeSinkContext();

  DeltaSinkWriter task;

  final Set<TopicPartition> assignment = context.assignment;
  private final Map<TopicPartition, Long> position = new HashMap<>();
  private final Set<TopicPartition> consumerPaused = new HashSet<>();
  private final List<SinkRecord> messageBatch = new ArrayList<>();
  private boolean pausedForRedelivery;
  private final Map<TopicPartition, Long> origOffsets = new HashMap<>();
  private final Map<TopicPartition, Long> currentOffsets = new HashMap<>();
  private RuntimeException rebalanceException;
  private int iterations;
  private final int commitEvery;
  private int maxPollRecords;

  /** Why the task died (Connect marks it FAILED), or null. */
  Throwable failure;

  boolean stopped;

  SimWorkerSinkTask(
      String name,
      SimKafka kafka,
      Group group,
      Function<SinkTaskContext, DeltaSinkWriter> factory,
      int commitEvery,
      int maxPollRecords) {
    this.name = name;
    this.kafka = kafka;
    this.group = group;
    this.commitEvery = commitEvery;
    this.maxPollRecords = maxPollRecords;
    this.task = factory.apply(context);
  }

  boolean alive() {
    return failure == null && !stopped;
  }

  /**
   * The writer's log lines from here on name this task ({@code %X{task}} in the test log pattern),
   * as Connect's MDC names the connector and task in a worker's log: with {@code -Dsim.log=true}
   * the log of a schedule reads like a worker's.
   */
  private void onThisTask() {
    MDC.put("task", name);
  }

  /** One turn of WorkerSinkTask.iteration(). */
  void iteration() {
    onThisTask();
    if (!alive()) {
      return;
    }
    lastDelivery = "";
    try {
      if (++iterations % commitEvery == 0) {
        commitOffsets(false, new ArrayList<>(assignment));
      }
      poll();
    } catch (Throwable t) {
      lastDelivery += "-> died: " + t;
      failure = t;
    }
  }

  /** Consumer's max.poll.records from now on. */
  void maxPollRecords(int records) {
    maxPollRecords = records;
  }

  private void poll() {
    rewind();
    group.rebalance(this);
    if (rebalanceException != null) {
      RuntimeException e = rebalanceException;
      rebalanceException = null;
      throw e;
    }
    int fetched = 0;
    for (TopicPartition tp : assignment) {
      if (consumerPaused.contains(tp)) {
        continue;
      }
      long pos = position.get(tp);
      while (fetched < maxPollRecords && pos < kafka.endOffset(tp)) {
        SinkRecord r = kafka.read(tp, pos);
        origOffsets.put(tp, pos + 1);
        messageBatch.add(r);
        pos++;
        fetched++;
      }
      position.put(tp, pos);
    }
    deliverMessages();
  }

  /** What the last delivery held, for the trace: partition → first..last offset. */
  String lastDelivery = "";

  private void deliverMessages() {
    Map<TopicPartition, long[]> span = new LinkedHashMap<>();
    for (SinkRecord r : messageBatch) {
      span.computeIfAbsent(
                  new TopicPartition(r.topic(), r.kafkaPartition()),
                  k -> new long[] {r.kafkaOffset(), 0})[1] =
          r.kafkaOffset();
    }
    StringBuilder d = new StringBuilder(pausedForRedelivery ? "redelivered " : "");
    span.forEach(
        (tp, s) -> d.append(tp).append('@').append(s[0]).append("..").append(s[1]).append(' '));
    lastDelivery = d.toString();
    try {
      task.put(new ArrayList<>(messageBatch));
      currentOffsets.putAll(origOffsets);
      origOffsets.clear();
      messageBatch.clear();
      if (pausedForRedelivery) {
        consumerPaused.clear();
        pausedForRedelivery = false;
      }
    } catch (RetriableException e) {
      lastDelivery += "-> RetriableException";
      if (!pausedForRedelivery) {
        pausedForRedelivery = true;
        consumerPaused.addAll(assignment);
      }
    }
  }

  private void rewind() {
    if (context.seeks.isEmpty()) {
      return;
    }
    for (Map.Entry<TopicPartition, Long> e : context.seeks.entrySet()) {
      TopicPartition tp = e.getKey();
      if (!assignment.contains(tp)) {
        // KafkaConsumer.seek on a partition the consumer does not own
        throw new IllegalStateException("No current assignment for partition " + tp);
      }
      position.put(tp, e.getValue());
      currentOffsets.put(tp, e.getValue());
    }
    context.seeks.clear();
  }

  private void commitOffsets(boolean closing, Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> toCommit = new HashMap<>();
    for (TopicPartition tp : partitions) {
      Long current = currentOffsets.get(tp);
      if (current != null) {
        toCommit.put(tp, new OffsetAndMetadata(current));
      }
    }
    if (toCommit.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> provided;
    try {
      provided = task.preCommit(new HashMap<>(toCommit));
    } finally {
      if (closing) {
        task.close(partitions);
      }
    }
    Map<TopicPartition, OffsetAndMetadata> committable = new HashMap<>();
    provided.forEach(
        (tp, o) -> {
          if (toCommit.containsKey(tp) && o.offset() <= toCommit.get(tp).offset()) {
            committable.put(tp, o);
          }
        });
    if (!committable.isEmpty()) {
      group.commit(this, committable);
    }
  }

  // ------------------------------------------------------------ rebalance callbacks (called by the
  // group)

  void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    onPartitionsRemoved(revoked, false);
  }

  void onPartitionsLost(Collection<TopicPartition> lost) {
    onPartitionsRemoved(lost, true);
  }

  private void onPartitionsRemoved(Collection<TopicPartition> partitions, boolean lost) {
    onThisTask();
    if (partitions.isEmpty()) {
      return;
    }
    List<TopicPartition> removed = new ArrayList<>(partitions);
    try {
      if (!lost) {
        commitOffsets(true, removed);
      } else {
        task.close(removed);
      }
    } catch (RuntimeException e) {
      rebalanceException = e;
    }
    for (TopicPartition tp : removed) {
      assignment.remove(tp);
      position.remove(tp);
      currentOffsets.remove(tp);
      origOffsets.remove(tp);
      consumerPaused.remove(tp);
    }
    messageBatch.removeIf(r -> removed.contains(new TopicPartition(r.topic(), r.kafkaPartition())));
  }

  void onPartitionsAssigned(Collection<TopicPartition> assigned) {
    onThisTask();
    for (TopicPartition tp : assigned) {
      assignment.add(tp);
      long pos = group.position(tp);
      position.put(tp, pos);
      currentOffsets.put(tp, pos);
    }
    boolean wasPausedForRedelivery = pausedForRedelivery;
    pausedForRedelivery = wasPausedForRedelivery && !messageBatch.isEmpty();
    if (pausedForRedelivery) {
      consumerPaused.addAll(assignment);
    } else if (wasPausedForRedelivery) {
      consumerPaused.clear();
    }
    if (assigned.isEmpty()) {
      return;
    }
    if (rebalanceException == null) {
      try {
        task.open(new ArrayList<>(assigned));
        rewind();
      } catch (RuntimeException e) {
        rebalanceException = e;
      }
    }
  }

  /**
   * Graceful stop: Connect closes every partition (committing offsets first), then stops the task.
   */
  void stop() {
    onThisTask();
    if (!alive()) {
      return;
    }
    try {
      commitOffsets(true, new ArrayList<>(assignment));
      task.stop();
    } catch (Throwable t) {
      failure = t;
    }
    stopped = true;
  }
}
