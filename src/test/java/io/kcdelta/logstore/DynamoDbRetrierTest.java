package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/**
 * The retry loop on the error shapes DynamoDB returns (which shapes pass is {@code
 * TransienceTest}'s subject). dynalite never throttles, fails with 5xx or denies access, so these
 * shapes are built here; the real network (a closed port, a server that never answers) is in {@link
 * DynamoDbUnreachableTest}.
 */
class DynamoDbRetrierTest {

  private final DynamoDbRetrier retrier = new DynamoDbRetrier(settings(4));

  @Test
  void retriesWhatTransiencePassesAndNothingElse() throws IOException {
    AtomicInteger calls = new AtomicInteger();
    assertEquals(
        "ok",
        retrier.call(
            "Query",
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw DynamoDbException.builder()
                    .statusCode(503)
                    .awsErrorDetails(error("ServiceUnavailable"))
                    .build();
              }
              return "ok";
            }));
    assertEquals(2, calls.get(), "a 503 is retried");

    calls.set(0);
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                retrier.call(
                    "GetItem",
                    () -> {
                      calls.incrementAndGet();
                      throw SdkClientException.create(
                          "Unable to load credentials from any of the providers in the chain");
                    }));
    assertEquals(1, calls.get(), "missing credentials are not retried");
    assertTrue(e.getMessage().contains("dynamodb:GetItem"), e.getMessage());
  }

  @Test
  void theCallTimeoutEndsACallBeforeItsAttemptsRunOut() {
    Configuration conf = conf(1_000);
    conf.setLong(DynamoDbLogStoreKeys.ATTEMPT_TIMEOUT_MS, 100);
    conf.setLong(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS, 400);
    conf.setLong(DynamoDbLogStoreKeys.RETRY_BASE_DELAY_MS, 20);
    conf.setLong(DynamoDbLogStoreKeys.RETRY_MAX_DELAY_MS, 20);
    DynamoDbRetrier bounded = new DynamoDbRetrier(DynamoDbSettings.from(conf));
    AtomicInteger calls = new AtomicInteger();
    long t0 = System.nanoTime();
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                bounded.call(
                    "PutItem",
                    () -> {
                      calls.incrementAndGet();
                      throw DynamoDbException.builder()
                          .statusCode(500)
                          .awsErrorDetails(error("InternalServerError"))
                          .build();
                    }));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    // The last attempt may start at 300 ms (it could take 100 ms); scheduling gets a wide margin.
    assertTrue(ms < 400 + 1_000, ms + " ms");
    assertTrue(calls.get() > 1 && calls.get() < 1_000, calls.get() + " attempts");
    assertTrue(e.getMessage().contains(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS), e.getMessage());
  }

  @Test
  void aCallTimeoutBelowTheAttemptTimeoutStillAllowsOneWholeAttempt() {
    Configuration conf = conf(8);
    conf.setLong(DynamoDbLogStoreKeys.ATTEMPT_TIMEOUT_MS, 30_000);
    conf.setLong(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS, 5_000);
    assertEquals(30_000, DynamoDbSettings.from(conf).callTimeout().toMillis());
  }

  @Test
  void retriesUntilSuccessWithinTheBudget() throws IOException {
    AtomicInteger calls = new AtomicInteger();
    String result =
        retrier.call(
            "GetItem",
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw DynamoDbException.builder()
                    .statusCode(500)
                    .awsErrorDetails(error("InternalServerError"))
                    .build();
              }
              return "ok";
            });
    assertEquals("ok", result);
    assertEquals(3, calls.get());
  }

  @Test
  void exhaustedBudgetNamesEndpointRegionAndAttempts() {
    AtomicInteger calls = new AtomicInteger();
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                retrier.call(
                    "PutItem",
                    () -> {
                      calls.incrementAndGet();
                      throw ProvisionedThroughputExceededException.builder()
                          .statusCode(400)
                          .awsErrorDetails(error("ProvisionedThroughputExceededException"))
                          .build();
                    }));
    assertEquals(4, calls.get());
    assertTrue(
        e.getMessage()
            .startsWith(
                "DynamoDB at http://127.0.0.1:1/us-east-1 was unreachable or throttled for 4 attempts"),
        e.getMessage());
  }

  @Test
  void conditionalCheckFailureIsNeverRetried() {
    AtomicInteger calls = new AtomicInteger();
    ConditionalCheckFailedException ccf =
        ConditionalCheckFailedException.builder()
            .statusCode(400)
            .awsErrorDetails(error("ConditionalCheckFailedException"))
            .build();
    assertSame(
        ccf,
        assertThrows(
            ConditionalCheckFailedException.class,
            () ->
                retrier.call(
                    "PutItem",
                    () -> {
                      calls.incrementAndGet();
                      throw ccf;
                    })));
    assertEquals(1, calls.get());
  }

  @Test
  void accessDeniedNamesTheActionAndTheTable() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                retrier.call(
                    "CreateTable",
                    () -> {
                      throw DynamoDbException.builder()
                          .statusCode(400)
                          .awsErrorDetails(error("AccessDeniedException"))
                          .build();
                    }));
    assertTrue(e.getMessage().contains("dynamodb:CreateTable"), e.getMessage());
    assertTrue(e.getMessage().contains("'delta_log'"), e.getMessage());
  }

  private static AwsErrorDetails error(String code) {
    return AwsErrorDetails.builder()
        .errorCode(code)
        .errorMessage(code + " message")
        .serviceName("DynamoDb")
        .build();
  }

  private static DynamoDbSettings settings(int attempts) {
    return DynamoDbSettings.from(conf(attempts));
  }

  private static Configuration conf(int attempts) {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:1");
    conf.setInt(DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS, attempts);
    conf.setLong(DynamoDbLogStoreKeys.RETRY_BASE_DELAY_MS, 1);
    return conf;
  }
}
