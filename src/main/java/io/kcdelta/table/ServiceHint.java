package io.kcdelta.table;

import java.util.Locale;

/** Names the service behind a failure, so the task's error says what the operator should check. */
final class ServiceHint {
  private ServiceHint() {}

  static String of(Throwable e) {
    StringBuilder trace = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      trace.append(t.getClass().getName()).append(' ').append(t.getMessage()).append('\n');
    }
    String s = trace.toString().toLowerCase(Locale.ROOT);
    if (s.contains("invalidprotocolversion")) {
      return "The table needs a newer Delta protocol than (1, 2), the level this connector (Delta Standalone) "
          + "writes; it was probably upgraded to table features such as deletion vectors. Write to another "
          + "table, or keep this table at protocol (1, 2).";
    }
    if (s.contains("dynamodb")) {
      return "Check that DynamoDB (dynamodb.endpoint / dynamodb.region) is reachable, the table "
          + "(dynamodb.table.name) exists or may be created, and the credentials allow GetItem, PutItem and Query.";
    }
    if (s.contains("s3a") || s.contains("s3") || s.contains("amazon")) {
      return "Check that S3 (s3.endpoint / s3.region) is reachable, the bucket exists, and the credentials "
          + "allow GetObject, PutObject, DeleteObject and ListBucket.";
    }
    return "Check that the table's storage (delta.table.path) is reachable and writable.";
  }
}
