package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.table.DeltaCommitter.Committed;
import io.kcdelta.table.DeltaCommitter.Failed;
import io.kcdelta.table.DeltaCommitter.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CommitGroupTest {
  private static final long LINGER = 100;
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);

  /** Every commit the group asked for, as the list of entries it carried. */
  private final List<List<CommitGroup.Entry>> commits = new ArrayList<>();

  private RuntimeException failWith;

  private final CommitGroup group =
      new CommitGroup(
          LINGER,
          entries -> {
            commits.add(List.copyOf(entries));
            if (failWith != null) {
              throw failWith;
            }
            List<Outcome> out = new ArrayList<>();
            entries.forEach(e -> out.add(new Committed(commits.size())));
            return out;
          },
          appIds -> {
            throw new UnsupportedOperationException("no table here");
          });

  private static Batch batch(TopicPartition tp, long last) {
    return new Batch(List.of(), Map.of(tp, last), null, List.of());
  }

  private CommitGroup.Entry handIn(String member, TopicPartition tp, long nowMs) {
    return group.handIn(member, batch(tp, 9), Map.of(tp, -1L), nowMs);
  }

  @Test
  void aLoneMemberCommitsAtOnce() {
    CommitGroup.Entry e = handIn("a", P0, 0);
    assertEquals(new Committed(1), e.outcomeNow());
    assertEquals(1, commits.size());
  }

  @Test
  void theRoundWaitsForMembersWithRowsAndTheLastOneCommitsAllInOne() {
    group.buffered("a", 0);
    group.buffered("b", 5);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    assertNull(a.outcomeNow(), "b had rows buffered when the round opened");
    assertTrue(group.roundOpen());
    CommitGroup.Entry b = handIn("b", P1, 1001);
    assertEquals(1, commits.size());
    assertEquals(List.of(a, b), commits.get(0));
    assertEquals(new Committed(1), a.outcomeNow());
    assertEquals(new Committed(1), b.outcomeNow());
    assertTrue(!group.roundOpen());
  }

  @Test
  void aMemberWhoseRowsCameAfterTheRoundOpenedIsNotAwaited() {
    CommitGroup.Entry a = handIn("a", P0, 1000);
    group.buffered("b", 1001);
    assertEquals(new Committed(1), a.outcomeNow());
  }

  @Test
  void theRoundCommitsWithoutTheMissingMemberOnceTheLingerIsOver() {
    group.buffered("b", 0);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    group.commitIfDue(1000 + LINGER - 1);
    assertNull(a.outcomeNow());
    group.commitIfDue(1000 + LINGER);
    assertEquals(new Committed(1), a.outcomeNow());
  }

  @Test
  void aMemberThatLeavesIsNoLongerAwaited() {
    group.buffered("b", 0);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    group.leave("b");
    group.commitIfDue(1001);
    assertEquals(new Committed(1), a.outcomeNow());
  }

  @Test
  void batchesClaimingTheSamePartitionGoIntoSuccessiveCommits() {
    group.buffered("zombie", 0);
    CommitGroup.Entry owner = handIn("owner", P0, 1000);
    CommitGroup.Entry zombie = handIn("zombie", P0, 1001);
    assertEquals(List.of(List.of(owner), List.of(zombie)), commits);
    assertEquals(new Committed(1), owner.outcomeNow());
    assertEquals(new Committed(2), zombie.outcomeNow());
  }

  @Test
  void aBatchNoCommitTookCanBeWithdrawn() {
    group.buffered("b", 0);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    assertNull(group.withdraw(a));
    assertTrue(!group.roundOpen(), "nothing is handed in any more");
    group.commitIfDue(1000 + LINGER);
    assertTrue(commits.isEmpty());
  }

  @Test
  void withdrawingADecidedBatchReturnsItsOutcome() {
    CommitGroup.Entry a = handIn("a", P0, 1000);
    assertEquals(new Committed(1), group.withdraw(a));
  }

  @Test
  void commitNowDoesNotWaitForTheOthers() {
    group.buffered("b", 0);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    assertEquals(new Committed(1), group.commitNow(a));
  }

  @Test
  void aFailedCommitFailsEveryBatchItCarried() {
    failWith = new IllegalStateException("S3 away");
    group.buffered("b", 0);
    CommitGroup.Entry a = handIn("a", P0, 1000);
    CommitGroup.Entry b = handIn("b", P1, 1000);
    assertSame(failWith, assertInstanceOf(Failed.class, a.outcomeNow()).cause());
    assertSame(failWith, assertInstanceOf(Failed.class, b.outcomeNow()).cause());
  }
}
