package io.kcdelta.retry;

import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * What is left of one operation's {@link RetryPolicy}: when it started, its deadline, the attempts
 * that failed so far, and the delay before the next one. Not thread safe: one operation, one
 * thread.
 *
 * <pre>
 *   RetryBudget budget = policy.start();
 *   while (true) {
 *       try { return attempt(); }
 *       catch (SomeException e) {
 *           OptionalLong delay = Transience.isTransient(e) ? budget.nextDelayMillis() : OptionalLong.empty();
 *           if (delay.isEmpty()) throw ...;   // name the attempts and budget.elapsedMillis()
 *           sleep(delay.getAsLong());
 *       }
 *   }
 * </pre>
 */
public final class RetryBudget {

  static final LongSupplier MONOTONIC_MILLIS = () -> System.nanoTime() / 1_000_000;

  private final RetryPolicy policy;
  private final LongSupplier clock;
  private final long startedAt;
  private final long deadline;
  private int failedAttempts;

  RetryBudget(RetryPolicy policy, LongSupplier clock, long startedAt, long deadline) {
    this.policy = policy;
    this.clock = clock;
    this.startedAt = startedAt;
    this.deadline = deadline;
  }

  /**
   * Counts a failed attempt and says how long to wait before the next one; empty when the budget is
   * spent: {@code maxAttempts} reached, or the next attempt could not end before the deadline. The
   * delay is shortened if only a shorter one leaves room for that attempt.
   */
  public OptionalLong nextDelayMillis() {
    failedAttempts++;
    if (failedAttempts >= policy.maxAttempts()) {
      return OptionalLong.empty();
    }
    long slack = rawSlack();
    if (slack <= 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.min(policy.backoff().delayMillis(failedAttempts), slack));
  }

  /** True when no further attempt may start (see {@link #nextDelayMillis}). */
  public boolean spent() {
    return failedAttempts >= policy.maxAttempts() || rawSlack() <= 0;
  }

  /** How long the caller may still wait (for a lock, say) and leave time for one attempt. */
  public long slackMillis() {
    return Math.max(0, rawSlack());
  }

  public int failedAttempts() {
    return failedAttempts;
  }

  public long elapsedMillis() {
    return clock.getAsLong() - startedAt;
  }

  public long remainingMillis() {
    return Math.max(0, deadline - clock.getAsLong());
  }

  public long startedAtMillis() {
    return startedAt;
  }

  public long deadlineMillis() {
    return deadline;
  }

  public RetryPolicy policy() {
    return policy;
  }

  LongSupplier clock() {
    return clock;
  }

  private long rawSlack() {
    return deadline - policy.attemptTimeout().toMillis() - clock.getAsLong();
  }
}
