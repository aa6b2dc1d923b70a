package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * A log-store call (the Query of {@code listFrom}) against a DynamoDB that is not there, over a
 * real SDK client: it must give up within {@link DynamoDbLogStoreKeys#CALL_TIMEOUT_MS}. Durations
 * are measured and checked against the bound with a wide margin for a loaded machine.
 */
class DynamoDbUnreachableTest {

  /** For scheduling and a loaded CI machine; the bound itself is the call timeout. */
  private static final long MARGIN_MS = 5_000;

  @Test
  void aClosedPortFailsWithinTheDefaultCallTimeout() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    Configuration conf = conf(closed);
    long t0 = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> latest(conf));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("closed port, default limits: gave up after %d ms: %s%n", ms, e.getMessage());
    assertTrue(ms < DynamoDbLogStoreKeys.DEFAULT_CALL_TIMEOUT_MS + MARGIN_MS, ms + " ms");
    assertTrue(
        e.getMessage()
            .contains(
                "was unreachable or throttled for "
                    + DynamoDbLogStoreKeys.DEFAULT_RETRY_MAX_ATTEMPTS
                    + " attempts"),
        e.getMessage());
  }

  @Test
  void aServerThatNeverAnswersFailsWithinTheCallTimeout() throws IOException {
    // Listening but never accepting: the kernel completes the TCP handshake, no HTTP answer ever
    // comes, so each attempt ends on the attempt timeout, as with a black-holed network.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Configuration conf = conf(silent.getLocalPort());
      conf.setLong(DynamoDbLogStoreKeys.ATTEMPT_TIMEOUT_MS, 400);
      conf.setLong(DynamoDbLogStoreKeys.CALL_TIMEOUT_MS, 2_000);
      long t0 = System.nanoTime();
      IOException e = assertThrows(IOException.class, () -> latest(conf));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf(
          "silent server, 400 ms attempts, 2000 ms per call: gave up after %d ms: %s%n",
          ms, e.getMessage());
      assertTrue(ms < 2_000 + MARGIN_MS, ms + " ms");
      Matcher attempts = Pattern.compile("for (\\d+) attempts").matcher(e.getMessage());
      assertTrue(
          attempts.find() && Integer.parseInt(attempts.group(1)) >= 2,
          "retried until the deadline, not the attempt cap: " + e.getMessage());
    }
  }

  private static void latest(Configuration conf) throws IOException {
    DynamoDbSettings s = DynamoDbSettings.from(conf);
    new DynamoDbLogEntries(DynamoDbClients.forSettings(s), new DynamoDbRetrier(s), s.tableName())
        .latest("s3a://bucket/warehouse/t");
  }

  private static Configuration conf(int port) {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:" + port);
    // Static credentials, so the failure is the network's and not the credential chain's.
    conf.set(DynamoDbLogStoreKeys.ACCESS_KEY, "test");
    conf.set(DynamoDbLogStoreKeys.SECRET_KEY, "test");
    return conf;
  }
}
