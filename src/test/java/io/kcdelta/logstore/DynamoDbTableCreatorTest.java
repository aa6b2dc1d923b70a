package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * The ACTIVE wait of the table check is bounded like one call, waits for another task's check
 * included. dynalite creates tables at once, so a table that stays CREATING is played by a fake
 * client.
 */
class DynamoDbTableCreatorTest {

  private static final long CALL_TIMEOUT_MS = 1_500;
  private static final long MARGIN_MS = 3_000;

  @Test
  void aTableThatBecomesActiveIsWaitedFor() throws IOException {
    StatusClient client = new StatusClient(3);
    DynamoDbSettings s = settings("becomes_active");
    DynamoDbTableCreator.ensureExists(client, new DynamoDbRetrier(s), s);
    assertEquals(4, client.describes.get(), "polled until ACTIVE");
    DynamoDbTableCreator.ensureExists(client, new DynamoDbRetrier(s), s);
    assertEquals(4, client.describes.get(), "remembered as ready");
  }

  @Test
  void aTableThatStaysCreatingFailsTransientlyWithinTheCallTimeout() throws Exception {
    StatusClient client = new StatusClient(Integer.MAX_VALUE);
    DynamoDbSettings s = settings("stays_creating");
    // Three tasks of one worker check the same table at once: one polls, two wait for it.
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Long>> runs = new ArrayList<>();
      List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int i = 0; i < 3; i++) {
        Callable<Long> check =
            () -> {
              long t0 = System.nanoTime();
              IOException e =
                  assertThrows(
                      IOException.class,
                      () -> DynamoDbTableCreator.ensureExists(client, new DynamoDbRetrier(s), s));
              messages.add(e.getMessage());
              return (System.nanoTime() - t0) / 1_000_000;
            };
        runs.add(pool.submit(check));
      }
      for (Future<Long> run : runs) {
        long ms = run.get();
        System.out.printf("table check of a table that stays CREATING gave up after %d ms%n", ms);
        assertTrue(ms < CALL_TIMEOUT_MS + MARGIN_MS, ms + " ms");
      }
      assertTrue(
          messages.stream()
              .anyMatch(
                  m ->
                      m.contains("is still CREATING after")
                          && m.contains(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS)),
          messages.toString());
      assertTrue(
          messages.stream().anyMatch(m -> m.contains("for another task of this worker")),
          messages.toString());
      assertTrue(client.describes.get() > 2, "polled more than once: " + client.describes.get());
    } finally {
      pool.shutdownNow();
    }
  }

  private static DynamoDbSettings settings(String table) {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, table);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:1");
    conf.setLong(DynamoDbLogStoreKeys.ATTEMPT_TIMEOUT_MS, 200);
    conf.setLong(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS, CALL_TIMEOUT_MS);
    return DynamoDbSettings.from(conf);
  }

  /** Answers DescribeTable with CREATING for the first {@code creatingPolls} calls, then ACTIVE. */
  private static final class StatusClient implements DynamoDbClient {
    final AtomicInteger describes = new AtomicInteger();
    private final int creatingPolls;

    StatusClient(int creatingPolls) {
      this.creatingPolls = creatingPolls;
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
      TableStatus status =
          describes.incrementAndGet() <= creatingPolls ? TableStatus.CREATING : TableStatus.ACTIVE;
      return DescribeTableResponse.builder()
          .table(t -> t.tableName(request.tableName()).tableStatus(status))
          .build();
    }

    @Override
    public String serviceName() {
      return "dynamodb";
    }

    @Override
    public void close() {}
  }
}
