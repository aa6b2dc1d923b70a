package io.kcdelta.logstore;

import io.kcdelta.retry.Backoff;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

/**
 * Creates the log table when it is missing (PAY_PER_REQUEST, HASH tablePath, RANGE fileName), waits
 * until it is ACTIVE, and enables TTL on {@code expireTime}. Runs at most once per JVM and table,
 * because every DeltaLog gets a new LogStore and a DescribeTable per table handle is waste.
 *
 * <p>The whole check, from waiting for another task's check to the table being ACTIVE, ends within
 * {@link DynamoDbLogStoreKeys#CALL_TIMEOUT_MS} (plus one attempt for TTL after a create). A table
 * that is still CREATING then fails this commit with a transient error; DynamoDB goes on creating
 * it, and the writer's next attempt finds it.
 */
final class DynamoDbTableCreator {

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbTableCreator.class);

  /** Pause between DescribeTable polls while the table is CREATING. */
  private static final Backoff ACTIVE_POLL = Backoff.ofMillis(50, 1_000);

  private static final Set<String> READY = ConcurrentHashMap.newKeySet();
  private static final ConcurrentMap<String, ReentrantLock> CHECKS = new ConcurrentHashMap<>();

  private DynamoDbTableCreator() {}

  static void ensureExists(DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s)
      throws IOException {
    String readyKey = s.describeService() + "#" + s.tableName();
    if (READY.contains(readyKey)) {
      return;
    }
    // The budget starts before the lock: while DynamoDB is unreachable the tasks of a worker queue
    // here, and each must give up within its own bound, not after everyone ahead of it.
    RetryBudget budget = checkBudget(s);
    ReentrantLock check = CHECKS.computeIfAbsent(readyKey, k -> new ReentrantLock());
    lock(check, budget, s);
    try {
      if (READY.contains(readyKey)) {
        return;
      }
      if (!isActive(client, retrier, s, budget)) {
        create(client, retrier, s, budget);
      }
      READY.add(readyKey);
    } finally {
      check.unlock();
    }
  }

  private static RetryBudget checkBudget(DynamoDbSettings s) {
    return new RetryPolicy(
            RetryPolicy.UNLIMITED_ATTEMPTS, s.callTimeout(), s.attemptTimeout(), ACTIVE_POLL)
        .start();
  }

  private static void lock(ReentrantLock check, RetryBudget budget, DynamoDbSettings s)
      throws IOException {
    boolean locked;
    try {
      locked = check.tryLock(budget.slackMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "interrupted while waiting to check DynamoDB table '" + s.tableName() + "'");
    }
    if (!locked) {
      throw new IOException(
          "Waited "
              + budget.elapsedMillis()
              + " ms for another task of this worker to check "
              + "DynamoDB table '"
              + s.tableName()
              + "' at "
              + s.describeService()
              + "; the commit will be retried");
    }
  }

  /**
   * @return false if the table does not exist; waits while it is being created.
   */
  private static boolean isActive(
      DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s, RetryBudget budget)
      throws IOException {
    try {
      waitUntilActive(client, retrier, s, budget);
      return true;
    } catch (TableMissing e) {
      return false;
    }
  }

  // Package-private so a test can play the losing side of a create race.
  static void create(DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s)
      throws IOException {
    create(client, retrier, s, checkBudget(s));
  }

  private static void create(
      DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s, RetryBudget budget)
      throws IOException {
    String table = s.tableName();
    if (budget.spent()) {
      throw new IOException(
          "DynamoDB table '"
              + table
              + "' at "
              + s.describeService()
              + " is missing and "
              + "there was no time left to create it ("
              + budget.elapsedMillis()
              + " ms spent checking); "
              + "the commit will be retried");
    }
    CreateTableRequest req =
        CreateTableRequest.builder()
            .tableName(table)
            .billingMode(BillingMode.PAY_PER_REQUEST)
            .attributeDefinitions(
                AttributeDefinition.builder()
                    .attributeName(LogEntry.TABLE_PATH)
                    .attributeType(ScalarAttributeType.S)
                    .build(),
                AttributeDefinition.builder()
                    .attributeName(LogEntry.FILE_NAME)
                    .attributeType(ScalarAttributeType.S)
                    .build())
            .keySchema(
                KeySchemaElement.builder()
                    .attributeName(LogEntry.TABLE_PATH)
                    .keyType(KeyType.HASH)
                    .build(),
                KeySchemaElement.builder()
                    .attributeName(LogEntry.FILE_NAME)
                    .keyType(KeyType.RANGE)
                    .build())
            .build();
    boolean created;
    try {
      retrier.call("CreateTable", budget, () -> client.createTable(req));
      created = true;
      LOG.info(
          "Created DynamoDB table '{}' at {} for the Delta log store", table, s.describeService());
    } catch (IOException e) {
      if (!(e.getCause() instanceof ResourceInUseException)) {
        throw e;
      }
      // Another worker created it between our DescribeTable and CreateTable.
      created = false;
    }
    try {
      waitUntilActive(client, retrier, s, budget);
    } catch (TableMissing e) {
      throw new IOException(
          "DynamoDB table '"
              + table
              + "' at "
              + s.describeService()
              + " vanished while waiting for it to become ACTIVE",
          e);
    }
    if (created) {
      enableTtl(client, s);
    }
  }

  private static void waitUntilActive(
      DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s, RetryBudget budget)
      throws IOException {
    String table = s.tableName();
    while (true) {
      TableStatus status;
      try {
        status =
            retrier
                .call("DescribeTable", budget, () -> client.describeTable(b -> b.tableName(table)))
                .table()
                .tableStatus();
      } catch (IOException e) {
        if (e.getCause() instanceof ResourceNotFoundException) {
          throw new TableMissing();
        }
        throw e;
      }
      if (status == TableStatus.ACTIVE) {
        return;
      }
      OptionalLong pause = budget.nextDelayMillis();
      if (pause.isEmpty()) {
        throw new IOException(
            "DynamoDB table '"
                + table
                + "' at "
                + s.describeService()
                + " is still "
                + status
                + " after "
                + budget.elapsedMillis()
                + " ms ("
                + DynamoDbLogStoreKeys.CALL_TIMEOUT_MS
                + " = "
                + s.callTimeout().toMillis()
                + "); the commit will be retried and use it once it is ACTIVE. "
                + "If it stays "
                + status
                + ", look at the table in the DynamoDB console.");
      }
      try {
        Thread.sleep(pause.getAsLong());
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(
            "interrupted while waiting for DynamoDB table '" + table + "'");
      }
    }
  }

  private static void enableTtl(DynamoDbClient client, DynamoDbSettings s) {
    try {
      client.updateTimeToLive(
          UpdateTimeToLiveRequest.builder()
              .tableName(s.tableName())
              .timeToLiveSpecification(t -> t.enabled(true).attributeName(LogEntry.EXPIRE_TIME))
              .build());
    } catch (SdkException e) {
      // Some DynamoDB-compatible servers (dynalite) lack UpdateTimeToLive. Without TTL the table
      // only grows; commits stay correct.
      LOG.warn(
          "Could not enable TTL on attribute '{}' of DynamoDB table '{}' at {}: {}. Completed log "
              + "entries will not expire; enable TTL on '{}' by hand.",
          LogEntry.EXPIRE_TIME,
          s.tableName(),
          s.describeService(),
          e.getMessage(),
          LogEntry.EXPIRE_TIME);
    }
  }

  /** Control flow only; never escapes this class. */
  private static final class TableMissing extends IOException {
    TableMissing() {
      super("table missing");
    }
  }
}
