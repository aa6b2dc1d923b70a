package io.kcdelta.logstore;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** Reads and writes {@link LogEntry} items; every call goes through the retry budget. */
final class DynamoDbLogEntries {

  private final DynamoDbClient client;
  private final DynamoDbRetrier retrier;
  private final String table;

  DynamoDbLogEntries(DynamoDbClient client, DynamoDbRetrier retrier, String table) {
    this.client = client;
    this.retrier = retrier;
    this.table = table;
  }

  /**
   * Consistent read, because a stale "absent" here would let two writers both think N-1 is missing.
   */
  Optional<LogEntry> get(String tablePath, String fileName) throws IOException {
    GetItemRequest req =
        GetItemRequest.builder()
            .tableName(table)
            .key(LogEntry.key(tablePath, fileName))
            .consistentRead(true)
            .build();
    Map<String, AttributeValue> item = retrier.call("GetItem", () -> client.getItem(req)).item();
    return item == null || item.isEmpty() ? Optional.empty() : Optional.of(LogEntry.fromItem(item));
  }

  /** The entry with the highest fileName of the table (20-digit names sort like versions). */
  Optional<LogEntry> latest(String tablePath) throws IOException {
    QueryRequest req =
        QueryRequest.builder()
            .tableName(table)
            .keyConditionExpression("#p = :p")
            .expressionAttributeNames(Map.of("#p", LogEntry.TABLE_PATH))
            .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(tablePath)))
            .scanIndexForward(false)
            .limit(1)
            .consistentRead(true)
            .build();
    QueryResponse resp = retrier.call("Query", () -> client.query(req));
    return resp.items().isEmpty()
        ? Optional.empty()
        : Optional.of(LogEntry.fromItem(resp.items().get(0)));
  }

  /**
   * Puts the entry if no item has its key.
   *
   * @return false if another writer holds the key
   */
  boolean putIfAbsent(LogEntry entry) throws IOException {
    PutItemRequest req =
        PutItemRequest.builder()
            .tableName(table)
            .item(entry.toItem())
            .conditionExpression("attribute_not_exists(#f)")
            .expressionAttributeNames(Map.of("#f", LogEntry.FILE_NAME))
            .build();
    int[] attempts = {0};
    try {
      retrier.call(
          "PutItem",
          previous -> {
            attempts[0] = previous + 1;
            return client.putItem(req);
          });
      return true;
    } catch (ConditionalCheckFailedException e) {
      if (attempts[0] > 1) {
        // An earlier attempt may have succeeded with its response lost (timeout): then the
        // item we collide with is our own. Answering "lost" here would make Delta rebase a
        // commit that recovery later also publishes under this version — a duplicate.
        Optional<LogEntry> existing = get(entry.tablePath(), entry.fileName());
        return existing.isPresent() && existing.get().tempPath().equals(entry.tempPath());
      }
      return false;
    }
  }

  /** Unconditional put; used to mark an entry complete, which is idempotent. */
  void put(LogEntry entry) throws IOException {
    PutItemRequest req = PutItemRequest.builder().tableName(table).item(entry.toItem()).build();
    retrier.call("PutItem", () -> client.putItem(req));
  }
}
