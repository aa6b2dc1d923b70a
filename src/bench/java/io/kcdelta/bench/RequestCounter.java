package io.kcdelta.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts AWS SDK v2 calls (S3 from s3a, DynamoDB from the log store) by service and operation, with
 * the client-side time each took. Registered for every SDK client in the bench JVM through {@code
 * software/amazon/awssdk/global/handlers/execution.interceptors}; only the commit bench reads it.
 */
public final class RequestCounter implements ExecutionInterceptor {

  private static final ExecutionAttribute<Long> START = new ExecutionAttribute<>("bench.start");
  private static final Map<String, LongAdder> CALLS = new ConcurrentHashMap<>();
  private static final Map<String, LongAdder> NANOS = new ConcurrentHashMap<>();
  private static final Map<String, LongAdder> FAILED = new ConcurrentHashMap<>();
  private static final Map<String, LongAdder> CALLERS = new ConcurrentHashMap<>();
  private static final boolean TRACE_CALLERS = Boolean.getBoolean("bench.callers");

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attrs) {
    attrs.putAttribute(START, System.nanoTime());
    CALLS.computeIfAbsent(name(attrs), k -> new LongAdder()).increment();
    if (TRACE_CALLERS) {
      CALLERS.computeIfAbsent(name(attrs) + " <- " + callers(), k -> new LongAdder()).increment();
    }
  }

  /** The innermost frames of Delta, the log store and the bench, and S3A's entry method. */
  private static String callers() {
    StringBuilder sb = new StringBuilder();
    String[] s3a = {null};
    int[] n = {0};
    StackWalker.getInstance()
        .forEach(
            f -> {
              String c = f.getClassName();
              if (s3a[0] == null && c.startsWith("org.apache.hadoop.fs.s3a.S3AFileSystem")) {
                s3a[0] = f.getMethodName();
              }
              if (n[0] < 5 && (c.startsWith("io.delta.") || c.startsWith("io.kcdelta."))) {
                sb.append(n[0]++ == 0 ? "" : " < ")
                    .append(c.substring(c.lastIndexOf('.') + 1))
                    .append('.')
                    .append(f.getMethodName());
              }
            });
    return (s3a[0] == null ? "" : "s3a." + s3a[0] + " | ") + sb;
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attrs) {
    took(attrs);
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attrs) {
    took(attrs);
    FAILED.computeIfAbsent(name(attrs), k -> new LongAdder()).increment();
  }

  private static void took(ExecutionAttributes attrs) {
    Long start = attrs.getAttribute(START);
    if (start != null) {
      NANOS.computeIfAbsent(name(attrs), k -> new LongAdder()).add(System.nanoTime() - start);
    }
  }

  private static String name(ExecutionAttributes attrs) {
    return attrs.getAttribute(SdkExecutionAttribute.SERVICE_NAME)
        + ":"
        + attrs.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
  }

  public static void reset() {
    CALLS.clear();
    NANOS.clear();
    FAILED.clear();
    CALLERS.clear();
  }

  /** One line per operation: calls per commit, failures per commit, mean ms per call. */
  public static String report(int commits) {
    StringBuilder sb = new StringBuilder();
    long total = 0;
    for (Map.Entry<String, LongAdder> e : new TreeMap<>(CALLS).entrySet()) {
      long n = e.getValue().sum();
      total += n;
      LongAdder f = FAILED.get(e.getKey());
      LongAdder ns = NANOS.get(e.getKey());
      sb.append(
          String.format(
              "    %-28s %6.2f/commit  failed %5.2f/commit  mean %6.1f ms%n",
              e.getKey(),
              n / (double) commits,
              f == null ? 0 : f.sum() / (double) commits,
              ns == null ? 0 : ns.sum() / 1e6 / n));
    }
    sb.append(String.format("    %-28s %6.2f/commit%n", "all SDK calls", total / (double) commits));
    CALLERS.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(
            e ->
                sb.append(
                    String.format(
                        "      %6.2f  %s%n", e.getValue().sum() / (double) commits, e.getKey())));
    return sb.toString();
  }
}
