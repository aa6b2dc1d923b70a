package io.kcdelta.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The limits of retrying one operation: at most {@code maxAttempts} attempts (the first included),
 * all of them finished within {@code total}, {@code backoff} between them. {@code attemptTimeout}
 * is the longest one attempt may take (0 when the operation has no timeout of its own): an attempt
 * is started only if it can end before the deadline, so the whole operation ends within {@code
 * total}.
 */
public record RetryPolicy(
    int maxAttempts, Duration total, Duration attemptTimeout, Backoff backoff) {

  /** For loops bounded by time alone. */
  public static final int UNLIMITED_ATTEMPTS = Integer.MAX_VALUE;

  public RetryPolicy {
    Objects.requireNonNull(total, "total");
    Objects.requireNonNull(attemptTimeout, "attemptTimeout");
    Objects.requireNonNull(backoff, "backoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    if (attemptTimeout.isNegative() || total.compareTo(attemptTimeout) < 0) {
      // Else not even the first attempt fits, and the bound would be a promise we cannot keep.
      throw new IllegalArgumentException(
          "a retry budget of "
              + total.toMillis()
              + " ms cannot hold one attempt of "
              + attemptTimeout.toMillis()
              + " ms");
    }
  }

  /** Starts the budget of one operation, now, on the monotonic clock. */
  public RetryBudget start() {
    return start(RetryBudget.MONOTONIC_MILLIS);
  }

  /** The same on another clock (milliseconds), for tests. */
  public RetryBudget start(LongSupplier clockMillis) {
    long now = clockMillis.getAsLong();
    return new RetryBudget(this, clockMillis, now, now + total.toMillis());
  }

  /**
   * Starts the budget of a step of {@code outer}'s operation: it ends no later than {@code outer}
   * does, so the steps together keep the outer bound.
   */
  public RetryBudget startWithin(RetryBudget outer) {
    RetryBudget own = start(outer.clock());
    return own.deadlineMillis() <= outer.deadlineMillis()
        ? own
        : new RetryBudget(this, outer.clock(), own.startedAtMillis(), outer.deadlineMillis());
  }
}
