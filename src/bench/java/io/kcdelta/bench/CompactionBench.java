package io.kcdelta.bench;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.it.ConnectCluster;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * The cost of compaction at a steady load: one embedded worker, {@code bench.compaction.tasks}
 * tasks, {@code bench.compaction.rate} records/s (the e2e bench's JSON records) for {@code
 * bench.compaction.seconds} into a local table partitioned by {@code channel} (5 values), commit
 * interval {@code bench.compaction.flush.ms}; once with compaction off, once on (interval {@code
 * bench.compaction.interval.ms}, 8 files minimum). For the window after the first {@code
 * bench.compaction.warmup.seconds} until the load ends it prints the process CPU, the CPU of the
 * maintenance thread and its share; then the files appended, the compaction commits and the live
 * files per partition value once every record is committed.
 */
public final class CompactionBench {
  private static final String MAINTENANCE_THREAD = "kcdelta-table-maintenance";

  private final int tasks = Integer.getInteger("bench.compaction.tasks", 4);
  private final int seconds = Integer.getInteger("bench.compaction.seconds", 180);
  private final int warmup = Integer.getInteger("bench.compaction.warmup.seconds", 30);
  private final int rate = Integer.getInteger("bench.compaction.rate", 4000);
  private final long flushMs = Long.getLong("bench.compaction.flush.ms", 5_000);
  private final long intervalMs = Long.getLong("bench.compaction.interval.ms", 15_000);
  private final List<String> modes =
      List.of(System.getProperty("bench.compaction.modes", "off,on").split(","));
  private final Path dir = Path.of(System.getProperty("bench.dir"));
  private long nextId;

  public static void main(String[] args) throws Exception {
    new CompactionBench().run();
    System.exit(0);
  }

  void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "[compaction] 1 worker, %d tasks, %d records/s for %d s (first %d s not measured), table "
            + "partitioned by channel (5 values), flush %d ms, compaction interval %d ms, runs %s%n",
        tasks,
        rate,
        seconds,
        warmup,
        flushMs,
        intervalMs,
        modes);
    Files.createDirectories(dir);
    EmbeddedConnectCluster connect = EndToEndBench.startCluster("compaction-bench", 1, Map.of());
    try {
      for (String mode : modes) {
        run(connect, mode.equals("on"));
      }
    } finally {
      connect.stop();
    }
  }

  private void run(EmbeddedConnectCluster connect, boolean compaction) throws Exception {
    String name = "compaction-" + (compaction ? "on" : "off");
    String topic = name + "-orders";
    String table = dir.resolve(name + "-" + System.currentTimeMillis()).toUri().toString();
    connect.kafka().createTopic(topic, tasks);
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.kcdelta.DeltaSinkConnector");
    c.put("tasks.max", String.valueOf(tasks));
    c.put("topics", topic);
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("delta.table.path", table);
    c.put("delta.table.partition.columns", "channel");
    c.put("flush.interval.ms", String.valueOf(flushMs));
    c.put("compaction.enabled", String.valueOf(compaction));
    c.put("compaction.interval.ms", String.valueOf(intervalMs));
    ConnectCluster.runConnector(connect, name, c, tasks);

    long[] last = new long[tasks];
    java.util.Arrays.fill(last, -1);
    long produced = 0;
    long cpu0 = 0;
    long maintenance0 = 0;
    long start = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      for (int s = 0; s < seconds; s++) {
        if (s == warmup) {
          cpu0 = processCpuNanos();
          maintenance0 = threadCpuNanos(MAINTENANCE_THREAD);
        }
        for (int i = 0; i < rate; i++) {
          long id = nextId++;
          int p = (int) (produced++ % tasks);
          producer.send(
              new ProducerRecord<>(topic, p, Long.toString(id).getBytes(), BenchRecords.json(id)));
          last[p]++;
        }
        long sleep = start + (s + 1) * 1000L - System.currentTimeMillis();
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
      }
      producer.flush();
    }
    long cpu = processCpuNanos() - cpu0;
    long maintenance = threadCpuNanos(MAINTENANCE_THREAD) - maintenance0;
    long measuredRecords = (long) (seconds - warmup) * rate;

    Configuration conf = new Configuration();
    DeltaLog log = DeltaLog.forTable(conf, table);
    long deadline = System.currentTimeMillis() + 300_000;
    while (!caughtUp(log, name, topic, last) && System.currentTimeMillis() < deadline) {
      Thread.sleep(1000);
    }
    connect.deleteConnector(name);
    long appended = 0;
    long compactions = 0;
    long removedByCompaction = 0;
    Iterator<VersionLog> changes = log.getChanges(0, false);
    while (changes.hasNext()) {
      List<Action> actions = changes.next().getActions();
      boolean compactionCommit =
          actions.stream().anyMatch(a -> a instanceof AddFile f && !f.isDataChange());
      if (compactionCommit) {
        compactions++;
        removedByCompaction += actions.size() - 1;
      } else {
        appended += actions.stream().filter(AddFile.class::isInstance).count();
      }
    }
    Map<String, Integer> live = new TreeMap<>();
    long rows = 0;
    for (AddFile f : log.update().getAllFiles()) {
      live.merge(f.getPartitionValues().get("channel"), 1, Integer::sum);
    }
    rows = EndToEndBench.rows(log.snapshot());
    System.out.printf(
        Locale.ROOT,
        "[compaction] %-3s | steady window %d s, %d records: process CPU %.1f s (%.1f us/record), "
            + "maintenance thread %.2f s = %.1f%% of process CPU | files appended %d, compaction "
            + "commits %d removing %d files | live files per channel %s | rows %d of %d produced%s%n",
        compaction ? "on" : "off",
        seconds - warmup,
        measuredRecords,
        cpu / 1e9,
        cpu / 1e3 / measuredRecords,
        maintenance / 1e9,
        100.0 * maintenance / cpu,
        appended,
        compactions,
        removedByCompaction,
        live,
        rows,
        produced,
        rows == produced ? "" : " (NOT all committed)");
  }

  private static boolean caughtUp(DeltaLog log, String connector, String topic, long[] last) {
    log.update();
    OptimisticTransaction txn = log.startTransaction();
    for (int p = 0; p < last.length; p++) {
      if (last[p] >= 0 && txn.txnVersion(connector + "-" + topic + "-" + p) < last[p]) {
        return false;
      }
    }
    return true;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long threadCpuNanos(String name) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        sum += Math.max(0, threads.getThreadCpuTime(t.getId()));
      }
    }
    return sum;
  }
}
