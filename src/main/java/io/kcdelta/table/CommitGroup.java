package io.kcdelta.table;

import io.kcdelta.table.DeltaCommitter.Failed;
import io.kcdelta.table.DeltaCommitter.LogRead;
import io.kcdelta.table.DeltaCommitter.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The tasks of one connector in this JVM that write one table, committing their batches together.
 *
 * <p>Why: every task committing on its own gives the table one version per task per interval, and
 * the tasks race each other for every version. Here a round opens when the first task's batch is
 * due; it waits for the members that had rows buffered then, at most {@code lingerMs}, and the
 * member that hands in the last awaited batch (or any member that finds the wait over) makes one
 * Delta commit of all of them. No thread of its own: a round runs on a task thread, inside put() or
 * close(), which keeps it deterministic under the simulation.
 *
 * <p>A member hands in at most one batch at a time and learns its outcome later ({@link
 * Entry#outcomeNow()}); it may withdraw a batch no commit took yet. Batches of one round that claim
 * the same Kafka partition (a zombie and the partition's new owner) go into successive commits, so
 * the second sees the first's txn version and is fenced.
 */
final class CommitGroup {
  /** One member's batch handed to the group, and in time what became of it. */
  static final class Entry {
    final Batch batch;
    final Map<TopicPartition, Long> expected;
    final long handedInNanos = System.nanoTime();
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private volatile long commitStartedNanos;
    private volatile long committedNanos;

    /** Told the outcome on the committing thread, which may be another member's. */
    private final Consumer<Outcome> decided;

    Entry(Batch batch, Map<TopicPartition, Long> expected) {
      this(batch, expected, o -> {});
    }

    Entry(Batch batch, Map<TopicPartition, Long> expected, Consumer<Outcome> decided) {
      this.batch = batch;
      this.expected = expected;
      this.decided = decided;
    }

    /** Null while no commit decided it. */
    Outcome outcomeNow() {
      return outcome.getNow(null);
    }

    /** From handing in to the outcome. */
    long latencyMs() {
      return (committedNanos - handedInNanos) / 1_000_000;
    }

    /**
     * The part of {@link #latencyMs()} before the commit that decided it began: the round's wait.
     */
    long waitedMs() {
      return (commitStartedNanos - handedInNanos) / 1_000_000;
    }

    void complete(Outcome o) {
      committedNanos = System.nanoTime();
      outcome.complete(o);
      decided.accept(o);
    }
  }

  private final long lingerMs;
  private final Function<List<Entry>, List<Outcome>> commit;
  private final CombinedReads<String, LogRead> reads;

  /** Guards the round's state below; never held across a commit. */
  private final Object lock = new Object();

  /** Per member, when the oldest row it has not handed in yet was buffered (absent: none). */
  private final Map<Object, Long> bufferedSince = new HashMap<>();

  private final List<Entry> handedIn = new ArrayList<>();
  private final Set<Object> awaited = new HashSet<>();

  /** When the open round started (-1: none is open). */
  private long openedMs = -1;

  /** One commit of this group at a time; a member that must wait for one waits on this. */
  private final ReentrantLock committing = new ReentrantLock();

  /**
   * @param commit makes one Delta commit of the entries (their partitions are disjoint) and returns
   *     an outcome per entry, in order
   * @param read reads the table's Delta log, one for the whole group (one snapshot in memory, not
   *     one per task): its metadata and the txn versions of the given appIds
   */
  CommitGroup(
      long lingerMs,
      Function<List<Entry>, List<Outcome>> commit,
      Function<Set<String>, LogRead> read) {
    this.lingerMs = lingerMs;
    this.commit = commit;
    this.reads = new CombinedReads<>(read);
  }

  /**
   * What the table's log says now about these appIds; one read serves the members that ask at the
   * same time.
   */
  LogRead read(Set<String> appIds) {
    return reads.read(appIds);
  }

  /** The member's oldest row not handed in yet was buffered at {@code sinceMs} (-1: none). */
  void buffered(Object member, long sinceMs) {
    synchronized (lock) {
      if (sinceMs < 0) {
        bufferedSince.remove(member);
        awaited.remove(member);
      } else {
        bufferedSince.put(member, sinceMs);
      }
    }
  }

  /** A round waits for batches: members with rows should hand them in now. */
  boolean roundOpen() {
    synchronized (lock) {
      return openedMs >= 0;
    }
  }

  /** Hands in a batch; commits the round at once when it was the last one awaited. */
  Entry handIn(Object member, Batch batch, Map<TopicPartition, Long> expected, long nowMs) {
    return handIn(member, batch, expected, nowMs, o -> {});
  }

  /**
   * @param decided told the batch's outcome as soon as a commit decides it, on the committing
   *     thread: must be quick and thread-safe
   */
  Entry handIn(
      Object member,
      Batch batch,
      Map<TopicPartition, Long> expected,
      long nowMs,
      Consumer<Outcome> decided) {
    Entry entry = new Entry(batch, expected, decided);
    synchronized (lock) {
      bufferedSince.remove(member);
      if (openedMs < 0) {
        openedMs = nowMs;
        awaited.addAll(bufferedSince.keySet());
      }
      awaited.remove(member);
      handedIn.add(entry);
    }
    commitIfDue(nowMs);
    return entry;
  }

  /** Commits the open round if every awaited batch is in or the wait is over. */
  void commitIfDue(long nowMs) {
    boolean due;
    synchronized (lock) {
      due = openedMs >= 0 && (awaited.isEmpty() || nowMs - openedMs >= lingerMs);
    }
    if (due) {
      commitRound();
    }
  }

  /**
   * Commits now whatever is handed in (the entry too, unless a running commit has it) and returns
   * the entry's outcome: for a member that must know before it goes on (close, stop).
   */
  Outcome commitNow(Entry entry) {
    commitRound();
    // Taken by the commit above or by one that ran before it released the lock.
    return entry.outcome.join();
  }

  /** Takes the entry back if no commit took it yet (returns null), else waits for its outcome. */
  Outcome withdraw(Entry entry) {
    synchronized (lock) {
      if (handedIn.remove(entry)) {
        if (handedIn.isEmpty()) {
          closeRound();
        }
        return null;
      }
    }
    committing.lock();
    committing.unlock();
    return entry.outcome.join();
  }

  /** The member writes no more to this table: the round no longer waits for it. */
  void leave(Object member) {
    buffered(member, -1);
  }

  private void commitRound() {
    committing.lock();
    try {
      List<Entry> round;
      synchronized (lock) {
        round = new ArrayList<>(handedIn);
        handedIn.clear();
        closeRound();
      }
      while (!round.isEmpty()) {
        List<Entry> disjoint = new ArrayList<>();
        List<Entry> later = new ArrayList<>();
        Set<TopicPartition> claimed = new HashSet<>();
        for (Entry e : round) {
          boolean overlaps = e.batch.lastOffsets().keySet().stream().anyMatch(claimed::contains);
          (overlaps ? later : disjoint).add(e);
          if (!overlaps) {
            claimed.addAll(e.batch.lastOffsets().keySet());
          }
        }
        decide(disjoint);
        round = later;
      }
    } finally {
      committing.unlock();
    }
  }

  private void decide(List<Entry> entries) {
    long started = System.nanoTime();
    entries.forEach(e -> e.commitStartedNanos = started);
    List<Outcome> outcomes;
    try {
      outcomes = commit.apply(entries);
    } catch (RuntimeException | Error e) {
      // Each member handles the failure of its own batch, as if it had committed alone.
      RuntimeException cause = e instanceof RuntimeException r ? r : new IllegalStateException(e);
      entries.forEach(entry -> entry.complete(new Failed(cause)));
      if (e instanceof Error error) {
        throw error;
      }
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      entries.get(i).complete(outcomes.get(i));
    }
  }

  private void closeRound() {
    openedMs = -1;
    awaited.clear();
  }
}
