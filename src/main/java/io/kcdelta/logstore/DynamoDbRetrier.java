package io.kcdelta.logstore;

import io.kcdelta.aws.AwsAccessException;
import io.kcdelta.aws.AwsAuthFailures;
import io.kcdelta.aws.AwsCredentialsException;
import io.kcdelta.aws.AwsIdentities;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import io.kcdelta.retry.Transience;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Runs one DynamoDB call within its {@link RetryPolicy} (attempts, a total deadline, backoff with
 * jitter), retrying what {@link Transience} calls passing, and turns every other failure into an
 * {@link IOException} that names the action and the table, which is what an operator needs to fix
 * an IAM policy or a typo.
 *
 * <p>{@link ConditionalCheckFailedException} passes through unchanged and is never retried: it is
 * the answer "another writer has this version", not a failure.
 */
final class DynamoDbRetrier {

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbRetrier.class);

  private final DynamoDbSettings settings;
  private final RetryPolicy policy;

  DynamoDbRetrier(DynamoDbSettings settings) {
    this.settings = settings;
    this.policy = settings.retryPolicy();
  }

  /** {@code call} sees how many attempts ran before it (0 on the first). */
  interface Attempt<T> {
    T run(int previousAttempts);
  }

  <T> T call(String action, Supplier<T> call) throws IOException {
    return call(action, null, previous -> call.get());
  }

  <T> T call(String action, Attempt<T> call) throws IOException {
    return call(action, null, call);
  }

  /** As a step of an operation with its own budget: never retries past {@code outer}'s deadline. */
  <T> T call(String action, RetryBudget outer, Supplier<T> call) throws IOException {
    return call(action, outer, previous -> call.get());
  }

  private <T> T call(String action, RetryBudget outer, Attempt<T> call) throws IOException {
    RetryBudget budget = outer == null ? policy.start() : policy.startWithin(outer);
    while (true) {
      try {
        return call.run(budget.failedAttempts());
      } catch (ConditionalCheckFailedException e) {
        throw e;
      } catch (SdkException e) {
        if (!Transience.isTransient(e)) {
          throw permanent(action, e);
        }
        OptionalLong delay = budget.nextDelayMillis();
        if (delay.isEmpty()) {
          throw gaveUp(action, budget, e);
        }
        LOG.debug(
            "DynamoDB {} on table {} failed transiently (attempt {}/{}), retrying in {} ms: {}",
            action,
            settings.tableName(),
            budget.failedAttempts(),
            policy.maxAttempts(),
            delay.getAsLong(),
            e.toString());
        sleep(delay.getAsLong());
      }
    }
  }

  private IOException gaveUp(String action, RetryBudget budget, SdkException last) {
    return new IOException(
        "DynamoDB at "
            + settings.describeService()
            + " was unreachable or throttled for "
            + budget.failedAttempts()
            + " attempts in "
            + budget.elapsedMillis()
            + " ms ("
            + action
            + " on table '"
            + settings.tableName()
            + "'; limits: "
            + policy.maxAttempts()
            + " attempts, "
            + policy.total().toMillis()
            + " ms per call, set by "
            + DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS
            + " and "
            + DynamoDbLogStoreKeys.CALL_TIMEOUT_MS
            + "). Check that the endpoint and region are "
            + "right and reachable from this worker; if DynamoDB throttles, raise the table's capacity. "
            + "Last error: "
            + last.getMessage(),
        last);
  }

  private IOException permanent(String action, SdkException e) {
    String where =
        "DynamoDB action dynamodb:"
            + action
            + " on table '"
            + settings.tableName()
            + "' at "
            + settings.describeService();
    Optional<AwsCredentialsException> noCredentials = AwsAuthFailures.credentialsFailure(e);
    if (noCredentials.isPresent()) {
      return new AwsAccessException(
          "No credentials for " + where + ": " + noCredentials.get().getMessage(), e);
    }
    Optional<AwsAuthFailures.Refusal> refusal = AwsAuthFailures.find(e);
    if (refusal.isPresent()) {
      return new AwsAccessException(
          AwsAuthFailures.dynamoDbRefused(
              action,
              settings.tableName(),
              settings.describeService(),
              AwsIdentities.of(settings.identity()),
              refusal.get()),
          e);
    }
    if (e instanceof ResourceNotFoundException) {
      return new IOException(
          where
              + " failed: the table does not exist. Create it (HASH tablePath S, "
              + "RANGE fileName S) or set "
              + DynamoDbLogStoreKeys.TABLE_AUTO_CREATE
              + "=true",
          e);
    }
    return new IOException(where + " failed: " + e.getMessage(), e);
  }

  private static void sleep(long millis) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException iio =
          new InterruptedIOException("interrupted while backing off a DynamoDB retry");
      iio.initCause(e);
      throw iio;
    }
  }
}
