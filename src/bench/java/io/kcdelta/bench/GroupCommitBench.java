package io.kcdelta.bench;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.kcdelta.it.ConnectCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * Many tasks, one table: {@code bench.group.workers} embedded workers × {@code bench.group.tasks}
 * tasks each, one partition per task, a steady load of {@code bench.group.rate} records/s for
 * {@code bench.group.seconds}, commit interval {@code bench.commit.ms}; once with {@code
 * delta.commit.group=false} and once with {@code true} (the runs of {@code bench.group.modes}).
 * Prints versions/min during the load, rows/s, fenced batches and the p50/p99/max commit latency of
 * the tasks' batches (from hand-in to outcome, read from the connector's INFO lines).
 *
 * <p>Each worker loads the plugin from {@code bench.plugin.path} through a plugin class loader of
 * its own, as separate worker JVMs would: the commit groups of one worker are not the others'. The
 * connector's classes are therefore not on this JVM's class path (bin/bench sees to it).
 */
public final class GroupCommitBench {
  static final String TOPIC = "group-orders";

  private static final Pattern COMMITTED =
      Pattern.compile("Committed \\S+ version \\S+ in (\\d+) ms \\((\\d+) ms of them waiting");

  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS", Locale.ROOT);

  private final int workers = Integer.getInteger("bench.group.workers", 4);
  private final int tasksPerWorker = Integer.getInteger("bench.group.tasks", 16);
  private final int seconds = Integer.getInteger("bench.group.seconds", 60);
  private final int rate = Integer.getInteger("bench.group.rate", 2000);
  private final long commitMs = Long.getLong("bench.commit.ms", 10_000);
  private final List<String> modes =
      List.of(System.getProperty("bench.group.modes", "off,on").split(","));
  private final String pluginPath = System.getProperty("bench.plugin.path");
  private final Path commitLog = Path.of(System.getProperty("bench.commitlog"));
  private final Path dir = Path.of(System.getProperty("bench.dir"));

  private EmbeddedConnectCluster connect;
  private long nextId;

  public static void main(String[] args) throws Exception {
    new GroupCommitBench().run();
    System.exit(0);
  }

  void run() throws Exception {
    int partitions = workers * tasksPerWorker;
    System.out.printf(
        Locale.ROOT,
        "[group] %d workers x %d tasks, one table, %d partitions, %d records/s for %d s, "
            + "commit interval %d ms, runs %s%n",
        workers,
        tasksPerWorker,
        partitions,
        rate,
        seconds,
        commitMs,
        modes);
    Files.createDirectories(dir);
    connect = startCluster();
    try {
      for (String mode : modes) {
        try {
          run(mode, partitions);
        } catch (NotCaughtUp e) {
          // A mode that cannot keep up is a figure too; the next mode still runs.
          System.out.printf(
              Locale.ROOT,
              "[group] delta.commit.group=%-5s %s%n",
              mode.equals("on"),
              e.getMessage());
        }
      }
    } finally {
      connect.stop();
    }
  }

  private EmbeddedConnectCluster startCluster() {
    return EndToEndBench.startCluster(
        "group-bench",
        workers,
        Map.of("plugin.path", pluginPath, "scheduled.rebalance.max.delay.ms", "5000"));
  }

  private void run(String mode, int partitions) throws Exception {
    String topic = TOPIC + "-" + mode;
    String connector = "group-" + mode;
    String table =
        dir.resolve("table-" + mode + "-" + System.currentTimeMillis()).toUri().toString();
    connect.kafka().createTopic(topic, partitions);
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.kcdelta.DeltaSinkConnector");
    c.put("tasks.max", String.valueOf(partitions));
    c.put("topics", topic);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("delta.table.path", table);
    c.put("flush.interval.ms", String.valueOf(commitMs));
    c.put("delta.commit.group", String.valueOf(mode.equals("on")));
    connect.configureConnector(connector, c);
    connect
        .assertions()
        .assertConnectorAndExactlyNumTasksAreRunning(
            connector, partitions, connector + " did not start");
    int logStart = Files.exists(commitLog) ? Files.readAllLines(commitLog).size() : 0;

    long[] lastOffsets = new long[partitions];
    java.util.Arrays.fill(lastOffsets, -1);
    long produced = 0;
    long loadStart = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      for (int s = 0; s < seconds; s++) {
        long secondStart = loadStart + s * 1000L;
        for (int i = 0; i < rate; i++) {
          long id = nextId++;
          int p = (int) (produced % partitions);
          producer.send(
              new ProducerRecord<>(topic, p, Long.toString(id).getBytes(), BenchRecords.json(id)));
          lastOffsets[p]++;
          produced++;
        }
        long sleep = secondStart + 1000 - System.currentTimeMillis();
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
      }
      producer.flush();
    }
    long loadEnd = System.currentTimeMillis();

    Configuration conf = new Configuration();
    DeltaLog log = DeltaLog.forTable(conf, table);
    long deadline = System.currentTimeMillis() + 300_000;
    while (!caughtUp(log, connector, topic, lastOffsets)) {
      if (System.currentTimeMillis() > deadline) {
        long versions = log.update().getVersion() + 1;
        connect.deleteConnector(connector);
        throw new NotCaughtUp(
            connector
                + " did not commit every record within 5 min of the load's end ("
                + versions
                + " versions by then)");
      }
      Thread.sleep(1000);
    }
    long caughtUp = System.currentTimeMillis();
    Snapshot snap = log.update();
    int versionsDuringLoad = 0;
    for (long v = 0; v <= snap.getVersion(); v++) {
      long ts = log.getCommitInfoAt(v).getTimestamp().getTime();
      if (ts >= loadStart && ts <= loadEnd) {
        versionsDuringLoad++;
      }
    }
    long rows = EndToEndBench.rows(snap);
    connect.deleteConnector(connector);
    List<Long> latencies = new ArrayList<>();
    List<Long> waits = new ArrayList<>();
    // The first two intervals are the warm-up: JIT, and every worker's first commits at once.
    List<Long> steady = new ArrayList<>();
    int fenced = readCommitLog(logStart, latencies, waits, steady, loadStart + 2 * commitMs);
    Collections.sort(latencies);
    Collections.sort(waits);
    Collections.sort(steady);
    System.out.printf(
        Locale.ROOT,
        "[group] delta.commit.group=%-5s versions/min %.1f (%d versions in %.0f s of load; %d in all) | "
            + "rows %d of %d produced%s | %.0f rows/s (load start to all committed) | fenced batches %d | "
            + "task batch commit latency p50 %d ms, p99 %d ms, max %d ms (%d batches); "
            + "of it waiting for the round p50 %d ms, p99 %d ms; "
            + "after the first 2 intervals p50 %d ms, p99 %d ms (%d batches)%n",
        mode.equals("on"),
        versionsDuringLoad * 60_000.0 / (loadEnd - loadStart),
        versionsDuringLoad,
        (loadEnd - loadStart) / 1e3,
        snap.getVersion() + 1,
        rows,
        produced,
        rows == produced ? "" : " (NOT exactly once)",
        rows * 1000.0 / (caughtUp - loadStart),
        fenced,
        percentile(latencies, 0.50),
        percentile(latencies, 0.99),
        latencies.isEmpty() ? -1 : latencies.get(latencies.size() - 1),
        latencies.size(),
        percentile(waits, 0.50),
        percentile(waits, 0.99),
        percentile(steady, 0.50),
        percentile(steady, 0.99),
        steady.size());
  }

  /** The connector did not commit every record in time. */
  private static final class NotCaughtUp extends Exception {
    NotCaughtUp(String message) {
      super(message);
    }
  }

  private static boolean caughtUp(
      DeltaLog log, String connector, String topic, long[] lastOffsets) {
    log.update();
    OptimisticTransaction txn = log.startTransaction();
    for (int p = 0; p < lastOffsets.length; p++) {
      if (lastOffsets[p] >= 0
          && txn.txnVersion(connector + "-" + topic + "-" + p) < lastOffsets[p]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The run's part of the connector's commit log lines: latencies and their waits for the round,
   * the latencies of the batches handed in from {@code steadyFromMs} on, and the fenced count.
   */
  private int readCommitLog(
      int fromLine, List<Long> latencies, List<Long> waits, List<Long> steady, long steadyFromMs)
      throws IOException {
    if (!Files.exists(commitLog)) {
      return 0;
    }
    List<String> lines = Files.readAllLines(commitLog);
    int fenced = 0;
    for (String line : lines.subList(Math.min(fromLine, lines.size()), lines.size())) {
      Matcher m = COMMITTED.matcher(line);
      if (m.find()) {
        long latency = Long.parseLong(m.group(1));
        latencies.add(latency);
        waits.add(Long.parseLong(m.group(2)));
        if (loggedAtMs(line) - latency >= steadyFromMs) {
          steady.add(latency);
        }
      } else if (line.contains("Refused to commit")) {
        fenced++;
      }
    }
    return fenced;
  }

  /** When the line was logged: its "[yyyy-MM-dd HH:mm:ss,SSS]" prefix, in this JVM's zone. */
  private static long loggedAtMs(String line) {
    return LocalDateTime.parse(line.substring(1, 24), LOG_TIME)
        .atZone(ZoneId.systemDefault())
        .toInstant()
        .toEpochMilli();
  }

  private static long percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return -1;
    }
    return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
  }
}
