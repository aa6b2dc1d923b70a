package io.kcdelta.table;

import io.kcdelta.metrics.SinkMetrics;
import java.util.Locale;

/** Names the service behind a failure, so the task's error says what the operator should check. */
final class ServiceHint {
  private ServiceHint() {}

  static String of(Throwable e) {
    String trace = trace(e);
    if (trace.contains("unsupportedtableexception")) {
      return "The table has something this connector does not write (see the error).";
    }
    return switch (serviceOf(trace)) {
      case DYNAMODB ->
          "Check that DynamoDB (dynamodb.endpoint / dynamodb.region) is reachable, the table "
              + "(dynamodb.table.name) exists or may be created, and the credentials allow GetItem, PutItem and Query.";
      case S3 ->
          "Check that S3 (s3.endpoint / s3.region) is reachable, the bucket exists, and the credentials "
              + "allow GetObject, PutObject, DeleteObject and ListBucket.";
      case STORAGE ->
          "Check that the table's storage (delta.table.path) is reachable and writable.";
    };
  }

  /** The service the failure came from, as the metrics tag retries. */
  static SinkMetrics.Service service(Throwable e) {
    return serviceOf(trace(e));
  }

  private static SinkMetrics.Service serviceOf(String trace) {
    if (trace.contains("dynamodb")) {
      return SinkMetrics.Service.DYNAMODB;
    }
    if (trace.contains("s3a") || trace.contains("s3") || trace.contains("amazon")) {
      return SinkMetrics.Service.S3;
    }
    return SinkMetrics.Service.STORAGE;
  }

  private static String trace(Throwable e) {
    StringBuilder trace = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      trace.append(t.getClass().getName()).append(' ').append(t.getMessage()).append('\n');
    }
    return trace.toString().toLowerCase(Locale.ROOT);
  }
}
