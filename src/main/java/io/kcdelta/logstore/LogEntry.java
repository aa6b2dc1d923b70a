package io.kcdelta.logstore;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One DynamoDB item: the claim on one commit file of one table. The attribute names, types and
 * values are the wire format shared with Delta's {@code S3DynamoDBLogStore}; do not change them.
 *
 * @param tablePath qualified table root URI without user info (HASH key)
 * @param fileName e.g. {@code 00000000000000000007.json} (RANGE key)
 * @param tempPath relative to {@code _delta_log}: {@code .tmp/<fileName>.<uuid>}
 * @param complete whether {@code fileName} is known to exist in the log directory
 * @param expireTime epoch seconds; we set it on every complete entry and never on an incomplete one
 *     (DynamoDB TTL must not delete an unfinished claim). May be null when read back.
 */
record LogEntry(
    String tablePath, String fileName, String tempPath, boolean complete, Long expireTime) {

  static final String TABLE_PATH = "tablePath";
  static final String FILE_NAME = "fileName";
  static final String TEMP_PATH = "tempPath";
  static final String COMPLETE = "complete";
  static final String EXPIRE_TIME = "expireTime";

  LogEntry {
    Objects.requireNonNull(tablePath);
    Objects.requireNonNull(fileName);
    Objects.requireNonNull(tempPath);
    if (!complete && expireTime != null) {
      throw new IllegalArgumentException("an incomplete entry must not expire: " + fileName);
    }
  }

  static LogEntry incomplete(String tablePath, String fileName, String tempPath) {
    return new LogEntry(tablePath, fileName, tempPath, false, null);
  }

  LogEntry asComplete(long expireEpochSeconds) {
    return new LogEntry(tablePath, fileName, tempPath, true, expireEpochSeconds);
  }

  Map<String, AttributeValue> toItem() {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(TABLE_PATH, s(tablePath));
    item.put(FILE_NAME, s(fileName));
    item.put(TEMP_PATH, s(tempPath));
    // Delta's store writes the strings "true"/"false", not a DynamoDB BOOL.
    item.put(COMPLETE, s(Boolean.toString(complete)));
    if (expireTime != null) {
      item.put(EXPIRE_TIME, AttributeValue.fromN(Long.toString(expireTime)));
    }
    return item;
  }

  static Map<String, AttributeValue> key(String tablePath, String fileName) {
    return Map.of(TABLE_PATH, s(tablePath), FILE_NAME, s(fileName));
  }

  static LogEntry fromItem(Map<String, AttributeValue> item) {
    String complete = required(item, COMPLETE);
    AttributeValue expire = item.get(EXPIRE_TIME);
    boolean isComplete = "true".equals(complete);
    Long expireTime = expire != null && expire.n() != null ? Long.valueOf(expire.n()) : null;
    return new LogEntry(
        required(item, TABLE_PATH),
        required(item, FILE_NAME),
        required(item, TEMP_PATH),
        isComplete,
        isComplete ? expireTime : null);
  }

  private static String required(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    if (v == null || v.s() == null) {
      throw new IllegalStateException(
          "DynamoDB log item lacks string attribute '" + name + "': " + item.keySet());
    }
    return v.s();
  }

  private static AttributeValue s(String value) {
    return AttributeValue.fromS(value);
  }
}
