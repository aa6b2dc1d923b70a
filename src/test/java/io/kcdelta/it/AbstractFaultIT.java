package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.delta.standalone.DeltaLog;
import io.kcdelta.it.infra.ChildJvm;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Fault tests on one Connect cluster (3 workers) writing s3a:// tables (s3proxy, objects on disk)
 * with commits coordinated through DynamoDB (dynalite, on disk), so both services can be stopped
 * and started again on the same port with the same data. Each test drives its own {@link Pipeline}:
 * a topic of {@value #PARTITIONS} partitions, a connector of {@value #TASKS} tasks and its own
 * table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFaultIT {
  static final int WORKERS = 3;
  static final int PARTITIONS = 8;
  static final int TASKS = 8;
  static final String DDB_TABLE = "delta_log_faults";

  Path dir;
  S3Proxy s3;
  Dynalite dynamo;
  EmbeddedConnectCluster connect;

  @BeforeAll
  void startCluster() throws IOException {
    dir = Files.createTempDirectory("kcdelta-" + getClass().getSimpleName());
    s3 = S3Proxy.onDisk(dir.resolve("s3"));
    dynamo = Dynalite.onDisk(dir.resolve("dynamodb"));
    connect = ConnectCluster.start(getClass().getSimpleName(), WORKERS);
  }

  @AfterAll
  void stopCluster() throws IOException {
    try {
      if (connect != null) {
        connect.stop();
      }
    } finally {
      if (dynamo != null) {
        dynamo.close();
      }
      if (s3 != null) {
        s3.close();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The connector's log store settings beyond dynamodb.*: none, so the DynamoDB store. */
  Map<String, String> logStoreConfig() {
    return Map.of();
  }

  /**
   * Reads tables independently of the connector (its own DeltaLog; same JVM-wide s3a and DynamoDB
   * clients).
   */
  Configuration readerConf() {
    Configuration conf = s3.hadoopConf();
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, DDB_TABLE);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, dynamo.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    return conf;
  }

  /** Waits for a condition; exceptions count as "not yet" (a service may be down on purpose). */
  static void await(
      String what, long timeoutMs, Callable<Boolean> condition, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Exception last = null;
    while (System.currentTimeMillis() < deadline) {
      try {
        if (condition.call()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(250);
    }
    fail(
        "Timed out after "
            + timeoutMs
            + " ms waiting for "
            + what
            + ". State: "
            + state.get()
            + (last == null ? "" : ". Last error: " + last));
  }

  static void log(String format, Object... args) {
    System.out.printf("[fault-it] " + format + "%n", args);
  }

  /**
   * A fourth worker runs in its own JVM and is killed with SIGKILL mid-stream: its tasks get no
   * stop(), close() or finally block, their buffered rows and uploads vanish. The three remaining
   * workers take over; then the worker comes back. Production never pauses.
   */
  void workerKilledScenario() throws Exception {
    long t0 = System.nanoTime();
    int port = freePort();
    String childWorkerId = "localhost:" + port;
    java.nio.file.Path props = writeChildWorkerProps(port);
    try (Pipeline p = new Pipeline("killed")) {
      ChildJvm child = startChildWorker(props, port);
      try {
        p.configure(Map.of(), TASKS);
        await(
            "a task on the child worker " + childWorkerId,
            60_000,
            () -> p.status().tasks().stream().anyMatch(t -> t.workerId().equals(childWorkerId)),
            p::describeTasks);
        long onChild =
            p.status().tasks().stream().filter(t -> t.workerId().equals(childWorkerId)).count();
        try (Pipeline.Background bg = p.produceInBackground(50, 100)) {
          // Mid-stream: the child's tasks have been consuming (buffering, uploading, committing)
          // for a while.
          long start = tableVersion(p);
          await(
              "commits while the child worker runs tasks",
              60_000,
              () -> tableVersion(p) >= start + 5,
              p::describeTasks);
          child.kill();
          log(
              "killed the child worker (%d of %d tasks) with SIGKILL after %d records",
              onChild, TASKS, p.records.partitionOfId.size());
          await(
              "all tasks running on the 3 remaining workers",
              120_000,
              () -> {
                ConnectorStateInfo s = p.status();
                return s.tasks().size() == TASKS
                    && s.tasks().stream()
                        .allMatch(
                            t ->
                                t.state().equals("RUNNING") && !t.workerId().equals(childWorkerId));
              },
              p::describeTasks);
          long v = tableVersion(p);
          await(
              "commits after the takeover",
              60_000,
              () -> tableVersion(p) > v + 2,
              p::describeTasks);
          child = startChildWorker(props, port);
          await(
              "the restarted worker to run tasks again",
              90_000,
              () ->
                  p.status().tasks().stream()
                      .anyMatch(
                          t -> t.workerId().equals(childWorkerId) && t.state().equals("RUNNING")),
              p::describeTasks);
          long v2 = tableVersion(p);
          await(
              "commits after the worker came back",
              60_000,
              () -> tableVersion(p) > v2 + 2,
              p::describeTasks);
        }
        p.awaitDurable(180_000);
        Verified verified = p.verify(Set.of());
        log(
            "scenario 1 (worker killed with SIGKILL, back again): %s; %.1f s",
            verified, secondsSince(t0));
      } finally {
        child.close();
      }
    }
  }

  private java.nio.file.Path writeChildWorkerProps(int port) throws Exception {
    Field f = EmbeddedConnectCluster.class.getDeclaredField("workerProps");
    f.setAccessible(true);
    @SuppressWarnings("unchecked")
    Map<String, String> workerProps = new HashMap<>((Map<String, String>) f.get(connect));
    workerProps.put("listeners", "HTTP://localhost:" + port);
    workerProps.put("rest.advertised.host.name", "localhost");
    workerProps.put("rest.advertised.port", String.valueOf(port));
    // A killed worker's consumers hold their partitions until their session expires.
    workerProps.put("consumer.session.timeout.ms", "10000");
    workerProps.put("consumer.heartbeat.interval.ms", "1000");
    Properties props = new Properties();
    props.putAll(workerProps);
    java.nio.file.Path file = dir.resolve("child-worker.properties");
    try (var out = Files.newOutputStream(file)) {
      props.store(out, "a Connect worker in its own JVM, same group as the embedded ones");
    }
    return file;
  }

  private static ChildJvm startChildWorker(java.nio.file.Path props, int port)
      throws InterruptedException {
    ChildJvm child =
        ChildJvm.start(
            "org.apache.kafka.connect.cli.ConnectDistributed", List.of(props.toString()));
    HttpClient http = HttpClient.newHttpClient();
    await(
        "the child worker's REST API on port " + port,
        90_000,
        () -> {
          if (!child.isAlive()) {
            throw new AssertionError("child worker died:\n" + child.output());
          }
          return http.send(
                      HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/connectors"))
                          .build(),
                      HttpResponse.BodyHandlers.discarding())
                  .statusCode()
              == 200;
        },
        () -> "child output in " + child.logFile());
    return child;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  long tableVersion(Pipeline p) {
    return DeltaLog.forTable(readerConf(), p.table).update().getVersion();
  }

  static double secondsSince(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** What {@link Pipeline#verify} checked. */
  record Verified(long rows, int kafkaPartitions, long tableVersion, int files) {
    @Override
    public String toString() {
      return rows
          + " rows exactly once, "
          + kafkaPartitions
          + " txn versions at the last offsets, table version "
          + tableVersion
          + ", "
          + files
          + " files";
    }
  }

  /** One topic → one connector → one table, with records whose ids are unique and remembered. */
  final class Pipeline implements AutoCloseable {
    final String topic;
    final String connector;
    final String table;
    final OrderRecords records = new OrderRecords();
    final KafkaProducer<byte[], byte[]> producer;
    private final AtomicLong nextId = new AtomicLong();
    private Map<String, String> config;

    Pipeline(String name) {
      this.topic = name;
      this.connector = name + "-sink";
      this.table = s3.uri("warehouse/" + name);
      connect.kafka().createTopic(topic, PARTITIONS);
      producer = ConnectCluster.producer(connect);
    }

    Map<String, String> baseConfig() {
      Map<String, String> c = ConnectCluster.jsonSinkConfig(topic, TASKS, table, true);
      c.put("delta.table.partition.columns", "region");
      // One table takes about one commit a second here (s3proxy on disk, dynalite, 2 shared cores):
      // more frequent flushes from 8 tasks only make them lose version races to each other.
      c.put("flush.interval.ms", "3000");
      c.putAll(s3.connectorConfig());
      c.putAll(dynamo.connectorConfig(DDB_TABLE));
      c.putAll(logStoreConfig());
      return c;
    }

    Map<String, String> config() {
      return config;
    }

    /** Creates (or reconfigures) the connector and waits for its tasks. */
    void configure(Map<String, String> overrides, int expectedTasks) throws InterruptedException {
      Map<String, String> c = baseConfig();
      c.putAll(overrides);
      config = c;
      ConnectCluster.runConnector(connect, connector, c, expectedTasks);
    }

    void awaitTasksRunning(int tasks) throws InterruptedException {
      connect
          .assertions()
          .assertConnectorAndExactlyNumTasksAreRunning(
              connector, tasks, connector + " did not run " + tasks + " tasks");
    }

    ConnectorStateInfo status() {
      return connect.connectorStatus(connector);
    }

    String describeTasks() {
      try {
        return status().tasks().stream()
            .map(t -> t.id() + "=" + t.state() + "@" + t.workerId())
            .collect(Collectors.joining(", "));
      } catch (RuntimeException e) {
        return "(status unavailable: " + e + ")";
      }
    }

    /** Produces the next {@code n} ids synchronously. */
    void produce(int n) throws Exception {
      long from = nextId.getAndAdd(n);
      records.produce(producer, topic, PARTITIONS, from, from + n);
    }

    Set<Long> producedIds() {
      return new HashSet<>(records.partitionOfId.keySet());
    }

    /** Keeps producing chunks of {@code chunk} records every {@code pauseMs} until stopped. */
    Background produceInBackground(int chunk, long pauseMs) {
      return new Background(chunk, pauseMs);
    }

    final class Background implements AutoCloseable {
      private final AtomicBoolean running = new AtomicBoolean(true);
      private final AtomicReference<Exception> error = new AtomicReference<>();
      private final Thread thread;

      Background(int chunk, long pauseMs) {
        thread =
            new Thread(
                () -> {
                  try {
                    while (running.get()) {
                      produce(chunk);
                      Thread.sleep(pauseMs);
                    }
                  } catch (Exception e) {
                    error.set(e);
                  }
                },
                "producer-" + topic);
        thread.setDaemon(true);
        thread.start();
      }

      /** Stops after the chunk in flight; every produced record is acknowledged and remembered. */
      @Override
      public void close() throws Exception {
        running.set(false);
        thread.join(60_000);
        if (error.get() != null) {
          throw error.get();
        }
      }
    }

    String appId(TopicPartition tp) {
      return connector + "-" + tp.topic() + "-" + tp.partition();
    }

    Map<String, Long> expectedTxnVersions() {
      Map<String, Long> want = new TreeMap<>();
      records.lastOffsets().forEach((tp, offset) -> want.put(appId(tp), offset));
      return want;
    }

    Map<String, Long> txnVersions(Collection<String> appIds) {
      return new TreeMap<>(DeltaTableContents.txnVersions(readerConf(), table, appIds));
    }

    /**
     * Waits until the table's txn version of every partition is the offset of the last record
     * produced.
     */
    void awaitDurable(long timeoutMs) throws InterruptedException {
      Map<String, Long> want = expectedTxnVersions();
      await(
          "txn versions " + want + " in " + table,
          timeoutMs,
          () -> want.equals(txnVersions(want.keySet())),
          () ->
              "table holds "
                  + safe(() -> txnVersions(want.keySet()))
                  + "; tasks "
                  + describeTasks());
    }

    /**
     * Reads the table back: every produced id exactly once (so every (topic, partition, offset)
     * exactly once), plus exactly {@code otherIds} from other writers, nothing else; and the txn
     * version of every partition at its last offset.
     */
    Verified verify(Set<Long> otherIds) throws Exception {
      DeltaTableContents contents = DeltaTableContents.read(readerConf(), table);
      Set<Long> want = producedIds();
      want.addAll(otherIds);
      Set<Long> missing = new HashSet<>(want);
      missing.removeAll(contents.idCounts().keySet());
      Set<Long> unexpected = new HashSet<>(contents.idCounts().keySet());
      unexpected.removeAll(want);
      Map<Long, Integer> duplicates =
          contents.idCounts().entrySet().stream()
              .filter(e -> e.getValue() != 1)
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      assertEquals(
          Set.of(),
          sample(missing),
          missing.size() + " record(s) missing, e.g. (id → partition@offset) " + where(missing));
      assertEquals(Set.of(), sample(unexpected), unexpected.size() + " unexpected record(s)");
      assertEquals(
          Map.of(),
          duplicates,
          duplicates.size() + " record(s) more than once: " + where(duplicates.keySet()));
      assertEquals(want.size(), contents.rows(), "rows");
      Map<String, Long> versions = expectedTxnVersions();
      assertEquals(versions, txnVersions(versions.keySet()), "txn versions");
      return new Verified(
          contents.rows(), versions.size(), contents.version(), contents.files().size());
    }

    private String where(Set<Long> ids) {
      return sample(ids).stream()
          .map(id -> id + "→" + records.partitionOfId.get(id) + "@" + records.offsetOfId.get(id))
          .collect(Collectors.joining(", "));
    }

    @Override
    public void close() {
      try {
        connect.deleteConnector(connector);
      } catch (RuntimeException e) {
        log("could not delete %s: %s", connector, e);
      }
      producer.close();
    }
  }

  static Set<Long> sample(Set<Long> ids) {
    return ids.stream().sorted().limit(10).collect(Collectors.toCollection(java.util.TreeSet::new));
  }

  static String safe(Supplier<?> s) {
    try {
      return String.valueOf(s.get());
    } catch (RuntimeException e) {
      return "(unavailable: " + e + ")";
    }
  }

  static List<String> traces(ConnectorStateInfo status) {
    return status.tasks().stream()
        .filter(t -> t.trace() != null)
        .map(ConnectorStateInfo.AbstractState::trace)
        .toList();
  }
}
