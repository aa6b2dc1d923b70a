package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kcdelta.sim.SimFaults.Kind;
import io.kcdelta.sim.Simulation.Setup;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scripts of upsert mode (key k, five keys per partition, tombstones delete): the table ends with
 * each key's last state once, or none when it is a delete; the random schedules of {@link
 * ExactlyOnceSimulationTest} cover the rest (a sixth of them write in upsert mode).
 */
class UpsertSimulationTest {
  private static final int COMMIT_EVERY = 3;

  @TempDir Path dir;

  /**
   * Keys updated within batches and across them, deleted and written again, by two tasks that share
   * one table's files and change hands at a rebalance.
   */
  @Test
  void eachKeyEndsWithItsLastStateAcrossBatchesAndARebalance() {
    Setup setup = new Setup(true, List.of("a"), 3, false, false, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("s"))) {
      SimWorkerSinkTask first = sim.startTask(COMMIT_EVERY, 7);
      for (int round = 0; round < 4; round++) {
        for (int p = 0; p < 3; p++) {
          sim.produce(tp(p), 6);
          sim.producePoison(tp(p));
        }
        sim.iterate(first);
        sim.iterate(first);
        sim.advanceClock(Simulation.FLUSH_MS);
        sim.iterate(first);
        if (round == 1) {
          sim.startTask(COMMIT_EVERY, 5);
        }
      }
      List<String> violations = sim.finish();
      assertEquals(List.of(), violations, String.join("\n  ", sim.trace));
    }
  }

  /**
   * Commits that delete rows fail: a deletion vector file cannot be created, then a commit lands
   * but its answer is lost. The batch is retried against the table as it is then (or recognized as
   * landed), and no row is deleted twice or kept.
   */
  @Test
  void aFailedUpsertCommitIsRetriedAgainstTheTableAsItIsThen() {
    Setup setup = new Setup(false, List.of("a"), 3, false, false, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("s"))) {
      SimWorkerSinkTask task = sim.startTask(COMMIT_EVERY, 50);
      for (int p = 0; p < 3; p++) {
        sim.produce(tp(p), 10);
      }
      sim.iterate(task);
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(task);
      for (int p = 0; p < 3; p++) {
        sim.produce(tp(p), 10);
        sim.producePoison(tp(p));
      }
      sim.faults().failNext(Kind.DATA_FILE_CREATE, "/deletion_vector_", 1);
      sim.faults().failNext(Kind.COMMIT_AFTER, "/s/table/", 1);
      sim.iterate(task);
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(task);
      sim.iterate(task);
      List<String> injected = sim.faults().injected();
      List<String> violations = sim.finish();
      assertEquals(List.of(), violations, String.join("\n  ", sim.trace));
      assertEquals(2, injected.size(), "the script no longer reaches both faults: " + injected);
    }
  }

  private static TopicPartition tp(int partition) {
    return new TopicPartition("a", partition);
  }
}
