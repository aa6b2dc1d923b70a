package io.kcdelta.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Backoff growth and jitter, and the budget's two limits (attempts, deadline) on a fake clock. */
class RetryBudgetTest {

  private final AtomicLong now = new AtomicLong(1_000);

  @Test
  void backoffDoublesUpToTheCapAndNeverOverflows() {
    Backoff b = Backoff.ofMillis(50, 5_000);
    assertEquals(50, b.nominalMillis(1));
    assertEquals(100, b.nominalMillis(2));
    assertEquals(3_200, b.nominalMillis(7));
    assertEquals(5_000, b.nominalMillis(8));
    assertEquals(5_000, b.nominalMillis(Integer.MAX_VALUE));
    assertEquals(
        1L << 62,
        new Backoff(Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE)).nominalMillis(64));
    assertEquals(0, Backoff.ofMillis(0, 0).delayMillis(3));
  }

  @Test
  void jitterStaysInTheUpperHalfAndSpreads() {
    Backoff b = Backoff.ofMillis(100, 10_000);
    SplittableRandom random = new SplittableRandom(42);
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 2_000; i++) {
      long d = b.delayMillis(4, random);
      min = Math.min(min, d);
      max = Math.max(max, d);
    }
    assertTrue(min >= 400 && max <= 800, min + ".." + max);
    assertTrue(max - min > 300, "spread " + min + ".." + max);
  }

  @Test
  void invalidLimitsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> Backoff.ofMillis(10, 5));
    assertThrows(IllegalArgumentException.class, () -> Backoff.ofMillis(-1, 5));
    assertThrows(IllegalArgumentException.class, () -> Backoff.ofMillis(1, 5).nominalMillis(0));
    assertThrows(IllegalArgumentException.class, () -> policy(0, 1_000, 0));
    assertThrows(IllegalArgumentException.class, () -> policy(3, 1_000, 2_000));
  }

  @Test
  void attemptsRunOutFirst() {
    RetryBudget budget = policy(3, 60_000, 0).start(now::get);
    assertTrue(budget.nextDelayMillis().isPresent());
    assertTrue(budget.nextDelayMillis().isPresent());
    assertFalse(budget.spent());
    assertEquals(OptionalLong.empty(), budget.nextDelayMillis(), "three attempts made");
    assertEquals(3, budget.failedAttempts());
    assertTrue(budget.spent());
  }

  @Test
  void noAttemptStartsThatCouldNotEndBeforeTheDeadline() {
    // 10 s in all, attempts of up to 3 s: the last one may start at 7 s.
    RetryBudget budget = policy(RetryPolicy.UNLIMITED_ATTEMPTS, 10_000, 3_000).start(now::get);
    now.addAndGet(5_000);
    assertEquals(2_000, budget.slackMillis());
    long delay = budget.nextDelayMillis().orElseThrow();
    assertTrue(delay <= 2_000, "shortened to fit: " + delay);
    now.addAndGet(2_001);
    assertEquals(OptionalLong.empty(), budget.nextDelayMillis());
    assertTrue(budget.spent());
    assertEquals(7_001, budget.elapsedMillis());
    assertEquals(2_999, budget.remainingMillis());
  }

  @Test
  void aStepNeverOutlivesItsOuterBudget() {
    RetryBudget outer = policy(RetryPolicy.UNLIMITED_ATTEMPTS, 10_000, 1_000).start(now::get);
    now.addAndGet(8_000);
    RetryBudget step = policy(8, 25_000, 1_000).startWithin(outer);
    assertEquals(outer.deadlineMillis(), step.deadlineMillis());
    assertEquals(1_000, step.slackMillis());
    RetryBudget early = policy(8, 1_000, 500).startWithin(outer);
    assertEquals(now.get() + 1_000, early.deadlineMillis(), "its own deadline when that is sooner");
  }

  private static RetryPolicy policy(int attempts, long totalMs, long attemptMs) {
    return new RetryPolicy(
        attempts,
        Duration.ofMillis(totalMs),
        Duration.ofMillis(attemptMs),
        Backoff.ofMillis(100, 1_000));
  }
}
