package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.HeaderDroppingProxy;
import io.kcdelta.it.infra.S3Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The s3-conditional log store on s3proxy (whose If-None-Match is atomic): racing creators get each
 * version once, racing DeltaLogs land every commit once, a create whose answer was lost is
 * recognised, and the store refuses an endpoint that ignores the condition and a table the DynamoDB
 * store uses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3ConditionalLogStoreTest {
  private static final int WRITERS = 16;
  private static final int VERSIONS = 50;

  private S3Proxy s3;

  @BeforeAll
  void start() {
    s3 = S3Proxy.inMemory();
  }

  @AfterAll
  void stop() {
    s3.close();
  }

  private Configuration conf(String tablePath, Map<String, String> more) {
    Map<String, String> props = new HashMap<>(s3.connectorConfig());
    props.put("name", "conditional-test");
    props.put("delta.table.path", tablePath);
    props.put("delta.log.store", "s3-conditional");
    props.putAll(more);
    Configuration conf = HadoopConfigurationFactory.create(new DeltaSinkConfig(props));
    assertEquals(
        S3ConditionalLogStore.class.getName(),
        conf.get(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL),
        "the connector's configuration selects this store");
    return conf;
  }

  /**
   * 16 threads create each of 50 commit files at once with the store's conditional create (the
   * store's in-JVM lock left out, as between JVMs): each version has exactly one winner, and holds
   * its content.
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void racingConditionalCreatesGiveEachVersionToOneWriter() throws Exception {
    String table = LogStoreTestSupport.uniqueTablePath(s3);
    Configuration conf = conf(table, Map.of());
    Map<Long, String> winnerOf = new ConcurrentHashMap<>();
    CyclicBarrier together = new CyclicBarrier(WRITERS);
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      String writer = "w" + w;
      writers.add(
          pool.submit(
              () -> {
                FileSystem fs = FileSystem.get(new Path(table).toUri(), conf);
                for (long v = 0; v < VERSIONS; v++) {
                  together.await();
                  Path file = LogStoreTestSupport.deltaFile(table, v);
                  byte[] content = (writer + " " + v + "\n").getBytes(StandardCharsets.UTF_8);
                  if (S3ConditionalLogStore.createIfAbsent(fs, file, content)) {
                    String previous = winnerOf.putIfAbsent(v, writer);
                    assertNull(previous, "version " + v + " won by " + previous + " and " + writer);
                  }
                }
                return null;
              }));
    }
    try {
      for (Future<?> f : writers) {
        f.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(VERSIONS, winnerOf.size(), "every version has a writer");
    for (Map.Entry<Long, String> e : winnerOf.entrySet()) {
      assertEquals(
          e.getValue() + " " + e.getKey() + "\n",
          LogStoreTestSupport.read(conf, LogStoreTestSupport.deltaFile(table, e.getKey())));
    }
  }

  /** 8 DeltaLogs (as 8 workers) append 10 commits each at once: versions 1..80, each once. */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void deltaLogsAppendingAtOnceLandEveryCommitOnce() throws Exception {
    String table = LogStoreTestSupport.uniqueTablePath(s3);
    Configuration conf = conf(table, Map.of());
    LogStoreTestSupport.createDeltaTable(conf, table);
    LogStoreTestSupport.raceAppendsAndCheckEachLandedOnce(conf, table, 8, 10);
  }

  /**
   * A create whose first answer was lost finds its own file on retry: that is a win. Another
   * writer's file is a loss.
   */
  @Test
  void aVersionHoldingExactlyOurCommitIsOurs() throws Exception {
    String table = LogStoreTestSupport.uniqueTablePath(s3);
    Configuration conf = conf(table, Map.of());
    LogStoreTestSupport.createDeltaTable(conf, table);
    Path v1 = LogStoreTestSupport.deltaFile(table, 1);
    FileSystem fs = v1.getFileSystem(conf);
    S3ConditionalLogStore.createIfAbsent(
        fs, v1, "{\"commitInfo\":{}}\n".getBytes(StandardCharsets.UTF_8));
    S3ConditionalLogStore store = new S3ConditionalLogStore(conf);

    store.write(v1, List.of("{\"commitInfo\":{}}").iterator(), false, conf);

    assertThrows(
        FileAlreadyExistsException.class,
        () -> store.write(v1, List.of("{\"commitInfo\":{\"other\":1}}").iterator(), false, conf));
    assertEquals("{\"commitInfo\":{}}\n", LogStoreTestSupport.read(conf, v1));
  }

  /** Behind a proxy that drops If-None-Match, the store refuses the table and says why. */
  @Test
  void anEndpointThatIgnoresTheConditionIsRefused() throws Exception {
    try (S3Proxy lax = S3Proxy.inMemoryWithoutAuthentication();
        HeaderDroppingProxy proxy = new HeaderDroppingProxy(lax.endpoint(), "If-None-Match")) {
      String table = lax.uri("tables/ignored");
      Map<String, String> props = new HashMap<>(lax.connectorConfig());
      props.put("s3.endpoint", proxy.endpoint().toString());
      props.put("name", "conditional-test");
      props.put("delta.table.path", table);
      props.put("delta.log.store", "s3-conditional");
      Configuration conf = HadoopConfigurationFactory.create(new DeltaSinkConfig(props));
      S3ConditionalLogStore store = new S3ConditionalLogStore(conf);

      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () ->
                  store.write(
                      LogStoreTestSupport.deltaFile(table, 0),
                      List.of("{\"commitInfo\":{}}").iterator(),
                      false,
                      conf));

      assertTrue(e.getMessage().contains("ignores conditional writes"), e.getMessage());
      assertTrue(e.getMessage().contains("delta.log.store=dynamodb"), e.getMessage());
      assertTrue(proxy.dropped() >= 2, "the proxy dropped the header: " + proxy.dropped());
      assertTrue(
          !LogStoreTestSupport.deltaFile(table, 0)
              .getFileSystem(conf)
              .exists(LogStoreTestSupport.deltaFile(table, 0)),
          "nothing was committed");
      // A reader that never writes (bin/delta-sink-status) is not refused, and writes no probe.
      int droppedBefore = proxy.dropped();
      conf.setBoolean(S3ConditionalLogStore.READ_ONLY, true);
      assertEquals(-1, io.delta.standalone.DeltaLog.forTable(conf, table).update().getVersion());
      assertEquals(droppedBefore, proxy.dropped(), "no conditional create by the reader");
    }
  }

  /**
   * A table whose log the DynamoDB store has entries for is refused; one without entries, or with
   * no DynamoDB reachable, is not.
   */
  @Test
  void aTableTheDynamoDbStoreUsesIsRefused() throws Exception {
    try (Dynalite dynamo = Dynalite.inMemory()) {
      String table = LogStoreTestSupport.uniqueTablePath(s3);
      Configuration dynamoConf = LogStoreTestSupport.conf(s3, dynamo, "delta_log_mix");
      LogStoreTestSupport.createDeltaTable(dynamoConf, table);
      Map<String, String> ddb = dynamo.connectorConfig("delta_log_mix");

      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> io.delta.standalone.DeltaLog.forTable(conf(table, ddb), table).update());
      assertTrue(e.getMessage().contains("delta_log_mix"), e.getMessage());
      assertTrue(e.getMessage().contains("delta.log.store=dynamodb"), e.getMessage());

      String other = LogStoreTestSupport.uniqueTablePath(s3);
      LogStoreTestSupport.createDeltaTable(conf(other, ddb), other);
    }
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    String table = LogStoreTestSupport.uniqueTablePath(s3);
    long t0 = System.nanoTime();
    LogStoreTestSupport.createDeltaTable(
        conf(table, Map.of("dynamodb.endpoint", "http://127.0.0.1:" + closed)), table);
    assertTrue(
        (System.nanoTime() - t0) / 1_000_000 < 30_000, "an unreachable DynamoDB is not waited for");
  }
}
