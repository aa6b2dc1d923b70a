package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.sim.SimFaults.Kind;
import io.kcdelta.sim.Simulation.Setup;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hole of issue 35, found by 20,000-schedule soaks (seeds 9878 and 35161 lost rows, 33538 and
 * one more killed their task): a partition opened while the task's batch for the same table is in
 * flight (handed to a commit group round that waits for another member of the worker) made the task
 * forget the batch's schema, because the table state saw an empty buffer and started over from the
 * table's schema, none for a table that does not exist yet. The commit then failed without a
 * verdict, the batch came back to the buffer, and its next attempt carried no schema: on a table
 * that still did not exist it counted as a batch without rows, its offsets were taken as covered
 * and its rows never committed (lost); on a table another writer had created meanwhile, schema
 * evolution threw NullPointerException, which is not transient, and the task died, again after
 * every restart.
 *
 * <p>Both scripts failed before the fix (TableState keeps the schema while a batch is in flight),
 * as their javadoc says.
 */
class InFlightBatchSchemaHoleTest {
  private static final int MAX_POLL = 100;
  private static final int COMMIT_EVERY = 3;

  @TempDir Path dir;

  /**
   * Pre-fix: {@code x-0: offsets missing from the table: [0, 1, 2, 3, 4] (of 0..4)}: the batch came
   * back without a schema and was taken as rowless on a table that did not exist.
   */
  @Test
  void aBatchInFlightKeepsItsRowsWhenAPartitionOfItsNewTableOpens() {
    ScriptRun run = script(false);
    assertAll(
        () -> assertEquals(List.of(), run.violations, run.describe()),
        () -> assertTrue(run.reachedTheHole, "the script no longer reaches the hole:\n" + run));
  }

  /**
   * Pre-fix: {@code task-0 died: ... The commit to .../x failed for a reason that retrying cannot
   * fix ... NullPointerException: Cannot invoke "StructType.getFields()" because "incoming" is
   * null}: the batch came back without a schema to a table another worker had created.
   */
  @Test
  void aBatchInFlightStillCommitsWhenAnotherWorkerCreatedTheTableMeanwhile() {
    ScriptRun run = script(true);
    assertAll(
        () -> assertEquals(List.of(), run.violations, run.describe()),
        () -> assertTrue(run.reachedTheHole, "the script no longer reaches the hole:\n" + run));
  }

  /**
   * Task A and task B share a worker (one commit group for table x), task D has a worker of its
   * own; one partition of x each. A hands in its batch while B holds a record, so the round waits
   * for B, which is then expelled: at its next poll A opens B's partition x-2 while its own batch
   * is still in flight. The round's commit then fails before writing, A takes the batch back, and
   * Connect redelivers after the RetriableException, at which A hands the batch in again.
   *
   * @param tableCreatedMeanwhile D creates the table between A's open and A's second attempt
   */
  private ScriptRun script(boolean tableCreatedMeanwhile) {
    Setup setup = new Setup(true, List.of("x"), 3, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("s"))) {
      TopicPartition x0 = new TopicPartition("x", 0);
      TopicPartition x1 = new TopicPartition("x", 1);
      TopicPartition x2 = new TopicPartition("x", 2);
      SimWorkerSinkTask a = sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask d = sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask b = sim.startTaskBeside(a, COMMIT_EVERY, MAX_POLL);
      sim.produce(x0, 5);
      sim.produce(x1, 5);
      // Errant (null value): b holds it for the round to wait on, and a, which reads it again
      // after its open, buffers no row of it, so no row gives a's buffer a schema again.
      sim.producePoison(x2);
      sim.iterate(a); // x-0@0..4 buffered
      sim.iterate(d); // x-1@0..4 buffered
      sim.iterate(b); // x-2@0 taken (errant)
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(a); // x-0 due: handed in, the round waits for b's rows
      sim.expel(b);
      sim.iterate(a); // the group gives x-2 to a: open([x-2]) with a's batch in flight
      boolean opened = a.assignment.equals(Set.of(x0, x2));
      if (tableCreatedMeanwhile) {
        sim.iterate(d); // commits x-1@0..4 through its own worker: creates the table
      }
      sim.advanceClock(Simulation.FLUSH_MS / 5); // past the round's linger
      sim.faults().failNext(Kind.COMMIT_BEFORE, "/x/_delta_log/", 1);
      sim.iterate(a); // the round commits a's batch alone, and fails: RetriableException
      boolean retried = a.lastDelivery.endsWith("-> RetriableException");
      sim.iterate(a); // the same (empty) batch redelivered: a hands its batch in again
      sim.advanceClock(Simulation.FLUSH_MS / 5);
      sim.iterate(a); // the round commits it
      return new ScriptRun(sim.finish(), opened && retried, sim.trace);
    }
  }

  private record ScriptRun(List<String> violations, boolean reachedTheHole, List<String> trace) {
    String describe() {
      return String.join("\n  ", trace);
    }
  }
}
