package io.kcdelta.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: before retry {@code n} (1 = the first retry) wait about {@code
 * base · 2^(n-1)}, at most {@code cap}.
 *
 * <p>The delay is drawn from the upper half of that value ("equal jitter"): writers throttled at
 * the same moment spread out instead of retrying in lock step, and no retry comes back sooner than
 * half the nominal delay, so a throttled service really gets the pause.
 */
public record Backoff(Duration base, Duration cap) {

  public Backoff {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(cap, "cap");
    if (base.isNegative() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "backoff needs 0 <= base <= cap, got base "
              + base.toMillis()
              + " ms, cap "
              + cap.toMillis()
              + " ms");
    }
  }

  public static Backoff ofMillis(long baseMs, long capMs) {
    return new Backoff(Duration.ofMillis(baseMs), Duration.ofMillis(capMs));
  }

  /** The delay in ms before retry {@code retry} (1 = the first retry). */
  public long delayMillis(int retry) {
    return delayMillis(retry, ThreadLocalRandom.current());
  }

  long delayMillis(int retry, RandomGenerator random) {
    long nominal = nominalMillis(retry);
    return nominal <= 1 ? nominal : nominal / 2 + random.nextLong(nominal / 2 + 1);
  }

  /** {@code base · 2^(retry-1)} capped, without overflowing for any retry number. */
  long nominalMillis(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry numbers start at 1, got " + retry);
    }
    long b = base.toMillis();
    long c = cap.toMillis();
    int shift = Math.min(retry - 1, 62);
    return b > (c >> shift) ? c : b << shift;
  }
}
