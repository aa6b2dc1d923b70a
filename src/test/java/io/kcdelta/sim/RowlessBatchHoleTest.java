package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kcdelta.sim.Simulation.Setup;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hole the simulation found after holes 1-3 were closed: a batch that holds offsets but no row
 * (every record errant, or a tombstone that behavior.on.null.values=ignore skips) had no schema, so
 * its commit failed on a table whose schema the writer did not know. Found with {@code
 * -Dsim.seed=59} at 40 steps per schedule; these scripts replay it without randomness. Both failed
 * before the fix in DeltaCommitter (a batch without files commits its offsets alone, or waits for
 * rows when there is no table yet).
 */
class RowlessBatchHoleTest {
  private static final int MAX_POLL = 100;
  private static final int COMMIT_EVERY = 3;

  @TempDir Path dir;

  /**
   * task-1 opened x-1 before the table existed, task-0 then created it; task-1's next batch is one
   * errant record of x-1. Seen: the commit throws NullPointerException in SchemaEvolution.evolve
   * (the batch has no schema), which counts as transient: RetriableException on every put, x-1
   * never advances ({@code x-1: txn version -1, expected the last offset 0}) until the retry budget
   * fails the task.
   */
  @Test
  void rowlessBatchCommitsToATableAnotherTaskCreated() {
    try (Simulation sim = new Simulation(new Setup(false, List.of("x"), 2, true), dir)) {
      TopicPartition x0 = new TopicPartition("x", 0);
      TopicPartition x1 = new TopicPartition("x", 1);
      SimWorkerSinkTask first = sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask second = sim.startTask(COMMIT_EVERY, MAX_POLL);
      sim.iterate(first); // x-0; no table yet
      sim.iterate(second); // x-1; no table yet
      sim.produce(x0, 5);
      sim.iterate(first);
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(first); // commits x-0@0..4: creates the table
      sim.producePoison(x1);
      sim.iterate(second); // x-1@0 is errant: the batch covers offset 0 with no row
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(second); // commits it
      assertEquals(List.of(), sim.finish(), String.join("\n", sim.trace));
    }
  }

  /**
   * A new table whose first batch is one errant record. Seen: the commit creates the table from the
   * batch's schema, which is null; Delta refuses ("Data written into Delta needs to contain at
   * least one non-partitioned column"), the writer takes that as permanent and the task dies, and
   * dies again after every restart, since the record comes again.
   */
  @Test
  void rowlessFirstBatchOfANewTableDoesNotFailTheTask() {
    try (Simulation sim = new Simulation(new Setup(false, List.of("x"), 1, true), dir)) {
      TopicPartition x0 = new TopicPartition("x", 0);
      SimWorkerSinkTask task = sim.startTask(COMMIT_EVERY, MAX_POLL);
      sim.producePoison(x0);
      sim.iterate(task);
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(task); // commits a batch that covers offset 0 with no row
      sim.produce(x0, 3);
      assertEquals(List.of(), sim.finish(), String.join("\n", sim.trace));
    }
  }
}
