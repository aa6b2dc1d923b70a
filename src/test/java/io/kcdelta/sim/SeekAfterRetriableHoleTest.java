package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.sim.SimFaults.Kind;
import io.kcdelta.sim.Simulation.Setup;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The second hole of issue 35 (seed 14709 of the 20,000-schedule soak after the first fix lost
 * a-0@42..48): the writer took every record of a partition it had asked Connect to seek as stale
 * until a put() returned normally. But Connect applies a seek at the start of its next poll, or
 * right after an open() in the same rebalance, whether or not the last put() threw
 * RetriableException: when a revocation empties the batch Connect keeps for redelivery, the next
 * put() holds records fetched after the seek, and dropping them skipped them for good (the consumer
 * had moved past them, and a later commit's txn version covers them).
 *
 * <p>Both scripts lose rows with the old rule (staleness until a normal return), as their javadoc
 * says; the writer now tells stale records by the poll that fetched them.
 */
class SeekAfterRetriableHoleTest {
  private static final int MAX_POLL = 100;
  private static final int COMMIT_EVERY = 3;

  @TempDir Path dir;

  /**
   * One put() asks for a seek of x-1 (its table's file failed to finish) and throws
   * RetriableException (another table's commit lost its answer); the next poll revokes the only
   * partition of the kept batch, so Connect fetches x-1 anew from the seek. Old rule: {@code x-1:
   * offsets missing from the table: [0, 1, 2, 3, 4]}.
   */
  @Test
  void recordsFetchedAfterTheSeekCountAlsoRightAfterARetriableException() {
    Setup setup = new Setup(true, List.of("x", "y"), 2, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("s"))) {
      TopicPartition x1 = new TopicPartition("x", 1);
      TopicPartition y1 = new TopicPartition("y", 1);
      sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask b = sim.startTask(COMMIT_EVERY, MAX_POLL); // owns x-1 and y-1
      sim.produce(x1, 3);
      sim.iterate(b); // x-1@0..2 buffered
      sim.produce(y1, 3);
      sim.iterate(b); // y-1@0..2 buffered
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.produce(y1, 2);
      sim.faults().failNext(Kind.DATA_FILE_CLOSE, "/x/", 1);
      sim.faults().failNext(Kind.COMMIT_AFTER, "/y/_delta_log/", 1);
      sim.iterate(b); // y-1@3..4; x's file fails: seek x-1 to 0; y's commit lands, answer lost
      boolean retried = b.lastDelivery.endsWith("-> RetriableException");
      boolean seekAsked = Long.valueOf(0).equals(b.context.seeks.get(x1));
      sim.produce(x1, 2);
      sim.startTask(COMMIT_EVERY, MAX_POLL); // takes y-1 from b
      sim.iterate(b); // seek applied; y-1 revoked, the kept batch is empty: x-1@0..4 fetched
      boolean refetched = b.lastDelivery.startsWith("x-1@0..4");
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(b);
      List<String> violations = sim.finish();
      assertAll(
          () -> assertEquals(List.of(), violations, String.join("\n  ", sim.trace)),
          () ->
              assertTrue(
                  retried && seekAsked && refetched,
                  "the script no longer reaches the hole:\n  " + String.join("\n  ", sim.trace)));
    }
  }

  /**
   * close() of a revoked partition fails to commit, so the task seeks its other partition x-5 of
   * the same table back; the same rebalance assigns x-1, and Connect applies the seek right after
   * open(), before this poll's fetch. Old rule: the refetched x-5@0..5 dropped, and the next
   * commit's txn version 8 covering them: {@code x-5: offsets missing from the table: [0, 1, 2, 3,
   * 4, 5]}.
   */
  @Test
  void recordsFetchedAfterAnOpenInTheSameRebalanceAreFresh() {
    Setup setup = new Setup(true, List.of("x"), 6, true);
    try (Simulation sim = new Simulation(setup, dir.resolve("s"))) {
      TopicPartition x2 = new TopicPartition("x", 2);
      TopicPartition x5 = new TopicPartition("x", 5);
      SimWorkerSinkTask a = sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask b = sim.startTask(COMMIT_EVERY, MAX_POLL);
      SimWorkerSinkTask c = sim.startTask(COMMIT_EVERY, MAX_POLL); // owns x-2 and x-5
      sim.iterate(a);
      sim.iterate(b);
      sim.produce(x2, 3);
      sim.produce(x5, 3);
      sim.iterate(c); // x-2@0..2 and x-5@0..2 buffered
      sim.expel(b); // c is to give x-2 up, keep x-5 and take x-1
      sim.produce(x5, 3);
      sim.faults().failNext(Kind.COMMIT_BEFORE, "/x/_delta_log/", 1);
      sim.iterate(c); // close([x-2]) fails: seek x-5 to 0; open([x-1]); x-5@0..5 fetched
      boolean refetched = c.lastDelivery.startsWith("x-5@0..5");
      sim.produce(x5, 3);
      sim.iterate(c); // x-5@6..8
      sim.advanceClock(Simulation.FLUSH_MS);
      sim.iterate(c); // commits x-5 up to 8: with the old rule without rows 0..5
      sim.iterate(a);
      List<String> violations = sim.finish();
      assertAll(
          () -> assertEquals(List.of(), violations, String.join("\n  ", sim.trace)),
          () ->
              assertTrue(
                  refetched,
                  "the script no longer reaches the hole:\n  " + String.join("\n  ", sim.trace)));
    }
  }
}
