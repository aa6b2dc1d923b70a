package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.sim.SimFaults.Kind;
import io.kcdelta.sim.Simulation.Setup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three exactly-once holes that the random simulation found (fixed in caad017), each replayed
 * as a fixed script against the real writer: Connect's behaviour from {@link SimWorkerSinkTask},
 * storage faults that hit exactly the calls named (count-limited, by path), then a drain with every
 * fault healed and the invariants of {@link Simulation#finish()}: each produced offset exactly once
 * in the table, the txn version of each partition its last offset, no task failed.
 *
 * <p>Each test was run against the pre-fix sources of DeltaSinkWriter, PartitionProgress and
 * TableWriter ({@code git show caad017^:...}) and failed there, as its javadoc says.
 */
class ExactlyOnceHoleRegressionTest {
  /**
   * Large enough that one poll fetches all that is produced; offsets go to the group every 3
   * iterations.
   */
  private static final int MAX_POLL = 100;

  private static final int COMMIT_EVERY = 3;

  @TempDir Path dir;

  /**
   * Hole 1: with a table per topic, one put() drops table A's batch (its upload fails: the writer
   * seeks A's partition back to what the table holds and carries on) and then fails B's commit
   * transiently (RetriableException). Connect redelivers the same retained batch, A's records
   * included, before it applies the seek. Those records are stale and must be skipped until the
   * seek took effect.
   *
   * <p>Pre-fix, put() cleared the "rewind pending" flag in a finally, also when it threw: the
   * redelivery was accepted (A@5..9 buffered again), the re-read from offset 0 that followed was
   * then skipped as "already seen", and the table ended up with A@5..9 only under txn version 9:
   * offsets 0..4 silently lost ({@code x-0: offsets missing from the table: [0, 1, 2, 3, 4] (of
   * 0..9)}, or y-0, in the order whose upload-failing table the writer commits first).
   *
   * <p>Which table the writer commits first is an implementation detail (a hash map's order of the
   * table paths), so both assignments of the roles run, on the same paths so that the order is the
   * same, and at least one of them must have hit both faults in one put: that is the hole's
   * trigger.
   */
  @Test
  void hole1RewoundTableStaysSkippedThroughTheRedeliveryOfARetriableException() {
    List<ScriptRun> runs = List.of(hole1Script("x", "y"), hole1Script("y", "x"));
    List<Executable> checks = new ArrayList<>();
    for (ScriptRun run : runs) {
      checks.add(() -> assertEquals(List.of(), run.violations(), run.describe()));
    }
    checks.add(
        () ->
            assertTrue(
                runs.stream().anyMatch(r -> r.faultsHitByTheScriptedStep() == 2),
                "in neither order did one put() both drop a table's batch and fail the other's commit, so this test no "
                    + "longer replays hole 1:\n"
                    + runs.get(0).describe()
                    + "\n"
                    + runs.get(1).describe()));
    assertAll(checks);
  }

  /**
   * @param uploadFails the topic (= table) whose data file upload fails; it gets the records of
   *     that put
   * @param commitFails the topic (= table) whose commit then fails before writing
   */
  private ScriptRun hole1Script(String uploadFails, String commitFails) {
    Setup setup = new Setup(false, List.of("x", "y"), 1, true);
    Path tables = dir.resolve("tables");
    Simulation.deleteRecursively(tables); // the run before used the same paths
    try (Simulation sim = new Simulation(setup, tables)) {
      TopicPartition a = new TopicPartition(uploadFails, 0);
      TopicPartition b = new TopicPartition(commitFails, 0);
      SimWorkerSinkTask task = sim.startTask(COMMIT_EVERY, MAX_POLL);
      sim.produce(a, 5);
      sim.produce(b, 5);
      sim.iterate(task); // gets both partitions, buffers @0..4 of each
      sim.advanceClock(Simulation.FLUSH_MS); // both tables are due at the next put
      sim.produce(a, 5);
      sim.faults().failNext(Kind.DATA_FILE_CLOSE, "/" + uploadFails + "/", 1);
      sim.faults().failNext(Kind.COMMIT_BEFORE, "/" + commitFails + "/_delta_log/", 1);
      sim.iterate(task); // put(a@5..9): commits both tables, and both attempts fail
      int faults = sim.faults().injected().size();
      sim.iterate(
          task); // Connect applies the seek, then redelivers the retained batch (a@5..9): stale
      sim.iterate(task); // fetches from where the seek pointed
      return new ScriptRun(
          uploadFails + "'s upload fails, " + commitFails + "'s commit fails",
          sim.finish(),
          faults,
          sim.trace);
    }
  }

  /**
   * Hole 2: with the cooperative protocol a task keeps x-0 while x-1 is revoked. close([x-1])
   * commits the table's batch, which holds rows of both; the commit fails, so the whole batch is
   * dropped, and x-0, which stays assigned, must be sought back to what the table holds.
   *
   * <p>Pre-fix, close() only aborted the batch: no seek of x-0, whose rows @0..4 had already been
   * counted as seen, so they were never read again while later offsets were committed ({@code x-0:
   * offsets missing from the table: [0, 1, 2, 3, 4]}).
   */
  @Test
  void hole2FailedCommitInCooperativeCloseRewindsThePartitionsThatStay() {
    ScriptRun run = cooperativeRevocationScript(Kind.COMMIT_BEFORE, "/x/_delta_log/");
    assertAll(
        () -> assertEquals(List.of(), run.violations(), run.describe()),
        () ->
            assertEquals(
                1,
                run.faultsHitByTheScriptedStep(),
                "the commit in close() did not fail as scripted:\n" + run.describe()));
  }

  /**
   * Hole 3: as in hole 2, but the batch is dropped because a data file upload fails in
   * close([x-1]). The writer must seek x-0 back, and must not seek x-1: x-1 is no longer the
   * task's, and Connect applies the seek at its next poll with KafkaConsumer.seek, which throws
   * IllegalStateException for a partition the consumer does not own; the task dies.
   *
   * <p>Pre-fix, the rewind inside close() sought every partition of the table, x-1 too ({@code
   * seeks after close: {x-0=0, x-1=0}}), and the task died at its next poll with {@code
   * IllegalStateException: No current assignment for partition x-1}.
   */
  @Test
  void hole3NoSeekOfThePartitionsBeingClosed() {
    ScriptRun run = cooperativeRevocationScript(Kind.DATA_FILE_CLOSE, "/x/");
    assertAll(
        () -> assertEquals(List.of(), run.violations(), run.describe()),
        () ->
            assertTrue(
                run.assignment().containsAll(run.seeks().keySet()),
                "seeks after close: "
                    + run.seeks()
                    + ", but the task owns only "
                    + run.assignment()
                    + "\n"
                    + run.describe()),
        () ->
            assertEquals(
                1,
                run.faultsHitByTheScriptedStep(),
                "the upload in close() did not fail as scripted:\n" + run.describe()));
  }

  /**
   * task-0 owns x-0 and x-1 with rows of both buffered in table x; task-1 joins, so at task-0's
   * next poll x-1 is revoked (cooperative: x-0 stays) and close([x-1]) commits the batch, where
   * {@code kind} fails once.
   */
  private ScriptRun cooperativeRevocationScript(Kind kind, String pathPart) {
    Setup setup = new Setup(true, List.of("x"), 2, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("revocation"))) {
      TopicPartition x0 = new TopicPartition("x", 0);
      TopicPartition x1 = new TopicPartition("x", 1);
      SimWorkerSinkTask first = sim.startTask(COMMIT_EVERY, MAX_POLL);
      sim.produce(x0, 5);
      sim.produce(x1, 5);
      sim.iterate(first); // gets both partitions, buffers @0..4 of each (not due yet)
      sim.startTask(COMMIT_EVERY, MAX_POLL); // the group now gives x-1 to it
      sim.produce(x0, 3); // fetched in the poll whose rebalance closes x-1
      sim.faults().failNext(kind, pathPart, 1);
      sim.iterate(first);
      assertEquals(
          Set.of(x0),
          first.assignment,
          "x-1 was not revoked as scripted:\n" + String.join("\n", sim.trace));
      Map<TopicPartition, Long> seeks = Map.copyOf(first.context.seeks);
      Set<TopicPartition> assignment = new HashSet<>(first.assignment);
      int faults = sim.faults().injected().size();
      sim.iterate(first); // Connect applies the seeks asked in close(), then fetches
      return new ScriptRun(
          "close([x-1]) fails (" + kind + ")", sim.finish(), faults, sim.trace, seeks, assignment);
    }
  }

  /** What a script ended with, and what it saw right after its scripted faults. */
  private record ScriptRun(
      String name,
      List<String> violations,
      int faultsHitByTheScriptedStep,
      List<String> trace,
      Map<TopicPartition, Long> seeks,
      Set<TopicPartition> assignment) {
    ScriptRun(String name, List<String> violations, int faults, List<String> trace) {
      this(name, violations, faults, trace, Map.of(), Set.of());
    }

    String describe() {
      return name + ":\n  " + String.join("\n  ", trace);
    }
  }
}
