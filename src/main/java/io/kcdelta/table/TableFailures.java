package io.kcdelta.table;

import io.kcdelta.aws.AwsAuthFailures;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.retry.Backoff;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import io.kcdelta.retry.Transience;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * What a failure of a table's storage or log becomes, decided in one place: a passing cause is
 * retried (a RetriableException, with Connect's back-off set) while the table's budget of {@code
 * delta.commit.retry.timeout.ms} lasts; any other cause, or a spent budget, fails the task with a
 * message that says what to check.
 */
final class TableFailures {
  private final SinkTaskContext context;
  private final LongSupplier clock;
  private final RetryPolicy retries;
  private final Configuration conf;

  TableFailures(
      SinkTaskContext context, LongSupplier clock, long retryTimeoutMs, Configuration conf) {
    this.context = context;
    this.clock = clock;
    this.conf = conf;
    this.retries =
        new RetryPolicy(
            RetryPolicy.UNLIMITED_ATTEMPTS,
            Duration.ofMillis(retryTimeoutMs),
            Duration.ZERO,
            Backoff.ofMillis(500, 5_000));
  }

  /** Fails the task unless retrying later can help. */
  void failUnlessTransient(String tablePath, String what, Exception cause) {
    if (!Transience.isTransient(cause)) {
      Optional<String> refused = AwsAuthFailures.explain(cause, conf, tablePath);
      throw new ConnectException(
          what
              + " failed for a reason that retrying cannot fix. "
              + refused.orElseGet(() -> ServiceHint.of(cause))
              + " Error: "
              + (refused.isPresent() ? rootCause(cause) : cause),
          cause);
    }
  }

  /** The innermost cause: after an explanation that already says it all, the service's answer. */
  private static Throwable rootCause(Throwable t) {
    Throwable root = t;
    for (int i = 0; i < 32 && root.getCause() != null && root.getCause() != root; i++) {
      root = root.getCause();
    }
    return root;
  }

  /**
   * The RetriableException to throw while the table's budget lasts (Connect redelivers after the
   * back-off); fails the task instead when retrying cannot help or the budget is spent.
   */
  RetriableException retriableOrFail(Table table, String what, Exception cause) {
    failUnlessTransient(table.path(), what, cause);
    SinkMetrics.Service service = ServiceHint.service(cause);
    RetryBudget budget = table.failing(retries, clock, service);
    OptionalLong delay = budget.nextDelayMillis();
    if (delay.isEmpty()) {
      throw new ConnectException(
          "Gave up after "
              + budget.elapsedMillis()
              + " ms: "
              + what
              + " kept failing. "
              + ServiceHint.of(cause)
              + " Last error: "
              + cause,
          cause);
    }
    table.metrics.retried(service);
    context.timeout(delay.getAsLong());
    return new RetriableException(
        what + " failed (retrying in " + delay.getAsLong() + " ms): " + cause, cause);
  }
}
