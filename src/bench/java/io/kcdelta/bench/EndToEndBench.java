package io.kcdelta.bench;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.it.ConnectCluster;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * End to end: per value format, one topic pre-filled with N records, one Connect worker, 2 tasks;
 * in turn the no-op sink, our connector and the Iceberg sink read the whole topic (each from the
 * beginning, own consumer group) into local-filesystem and s3a (+ DynamoDB log store for Delta)
 * tables. Prints records/s and MB/s from the first record handed to put() to the last commit, the
 * intake (first to last record handed to put(), which leaves out the last commit interval), files,
 * commits, CPU and heap, and the ratios.
 *
 * <p>Formats: {@code json} (JsonConverter with its schema envelope in every record) and {@code
 * avro} ({@link AvroBenchConverter}: Avro binary of a fixed writer schema mapped to Structs, what
 * an Avro converter costs). The JSON envelope costs more than the sink, which hides the sink's own
 * cost; the Avro runs show it.
 *
 * <p>System properties: bench.n (records, default 2,000,000), bench.formats (json,avro; also
 * plain), bench.runs (comma list of noop, delta-file, iceberg-file, delta-s3a, iceberg-s3a),
 * bench.commit.ms (commit interval of both sinks, default 10000), bench.dir (work folder).
 */
public final class EndToEndBench {
  static final String TOPIC = "bench-orders";
  static final int PARTITIONS = 2;
  static final int TASKS = 2;

  private final long n = Long.getLong("bench.n", 2_000_000);
  private final long commitMs = Long.getLong("bench.commit.ms", 10_000);
  private final List<String> runs =
      List.of(
          System.getProperty("bench.runs", "noop,delta-file,iceberg-file,delta-s3a,iceberg-s3a")
              .split(","));
  private final List<String> formats =
      List.of(System.getProperty("bench.formats", "json,avro").split(","));
  private final Path dir;

  /** Tables of one invocation never meet those of an earlier one in the same work folder. */
  private final String stamp = Long.toString(System.currentTimeMillis(), 36);

  private EmbeddedConnectCluster connect;
  private S3Proxy s3;
  private Dynalite dynamo;
  private Map<TopicPartition, Long> lastOffsets = new HashMap<>();
  private long topicBytes;
  private long payloadBytes;
  private final Map<String, Result> results = new LinkedHashMap<>();

  record Result(
      String run,
      long records,
      long ms,
      long commits,
      int files,
      long fileBytes,
      double cpuSec,
      double taskCpuSec,
      long taskAllocBytes,
      long heapPeak,
      long heapPeakAfterGc,
      String note,
      long lastPutMs) {
    double rps() {
      return records * 1000.0 / ms;
    }
  }

  EndToEndBench() throws Exception {
    String d = System.getProperty("bench.dir");
    dir =
        d == null ? Files.createTempDirectory("kcdelta-e2e-") : Files.createDirectories(Path.of(d));
  }

  public static void main(String[] args) throws Exception {
    new EndToEndBench().run();
    System.exit(0);
  }

  void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "[e2e] N=%,d records, %d partitions, 1 worker, %d tasks, commit interval %d ms, "
            + "formats %s, runs %s, work dir %s%n",
        n,
        PARTITIONS,
        TASKS,
        commitMs,
        formats,
        runs,
        dir);
    try {
      if (runs.stream().anyMatch(r -> r.endsWith("-s3a"))) {
        s3 = S3Proxy.onDisk(dir.resolve("s3"));
        dynamo = Dynalite.inMemory();
      }
      connect = startCluster();
      for (String f : formats) {
        format = Format.of(f);
        connect.kafka().createTopic(topic(), PARTITIONS);
        fill();
        for (String r : runs) {
          String run = r + "-" + f;
          if (format == Format.PLAIN && r.startsWith("iceberg")) {
            // Not measured: its schemaless path would need a table made for it first.
            System.out.println(
                "[e2e] " + run + " skipped: the plain format runs noop and ours only");
            continue;
          }
          Result res =
              switch (r) {
                case "noop" -> runNoop(run);
                case "delta-file", "delta-s3a" -> runDelta(run, r.endsWith("s3a"));
                case "iceberg-file", "iceberg-s3a" -> runIceberg(run, r.endsWith("s3a"));
                default -> throw new IllegalArgumentException("unknown run " + r);
              };
          results.put(run, res);
          print(res);
        }
      }
      for (String f : formats) {
        summary(f);
      }
    } finally {
      if (connect != null) {
        connect.stop();
      }
      if (dynamo != null) {
        dynamo.close();
      }
      if (s3 != null) {
        s3.close();
      }
    }
  }

  /**
   * As the tests' ConnectCluster, plus what the Iceberg sink's transactional producers need on one
   * broker.
   */
  private static EmbeddedConnectCluster startCluster() {
    return startCluster("bench", 1, Map.of());
  }

  /** The cluster of {@link #startCluster()} with more workers and worker settings. */
  static EmbeddedConnectCluster startCluster(
      String name, int workers, Map<String, String> moreWorkerProps) {
    Map<String, String> workerProps = new HashMap<>();
    workerProps.put("plugin.discovery", "service_load");
    workerProps.put("offset.flush.interval.ms", "2000");
    workerProps.put("offset.storage.partitions", "1");
    workerProps.put("status.storage.partitions", "1");
    java.util.Properties brokerProps = new java.util.Properties();
    brokerProps.put("offsets.topic.num.partitions", "1");
    brokerProps.put("group.initial.rebalance.delay.ms", "0");
    brokerProps.put("auto.create.topics.enable", "false");
    brokerProps.put("transaction.state.log.replication.factor", "1");
    brokerProps.put("transaction.state.log.min.isr", "1");
    brokerProps.put("transaction.state.log.num.partitions", "1");
    workerProps.putAll(moreWorkerProps);
    EmbeddedConnectCluster connect =
        new EmbeddedConnectCluster.Builder()
            .name(name)
            .numWorkers(workers)
            .numBrokers(1)
            .workerProps(workerProps)
            .brokerProps(brokerProps)
            .build();
    connect.start();
    return connect;
  }

  /** How the records of one topic are written and read. */
  private enum Format {
    JSON("org.apache.kafka.connect.json.JsonConverter", "incl. the JSON schema envelope"),
    AVRO(AvroBenchConverter.class.getName(), "Avro binary"),
    /**
     * The payload alone, schemas.enable=false: schemaless records, coerced by the table's columns.
     */
    PLAIN("org.apache.kafka.connect.json.JsonConverter", "plain JSON, no schema");

    final String converter;
    final String what;

    Format(String converter, String what) {
      this.converter = converter;
      this.what = what;
    }

    static Format of(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** A record's value bytes from its JSON payload. */
    Function<String, byte[]> producer() {
      if (this == JSON) {
        return BenchRecords::json;
      }
      if (this == PLAIN) {
        return payload -> payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }
      JsonConverter json = BenchRecords.converter();
      AvroBenchConverter avro = new AvroBenchConverter();
      return payload ->
          avro.fromConnectData(
              TOPIC, null, json.toConnectData(TOPIC, BenchRecords.json(payload)).value());
    }
  }

  private Format format;

  private String topic() {
    return TOPIC + "-" + format.name().toLowerCase(Locale.ROOT);
  }

  private void fill() throws Exception {
    long t0 = System.nanoTime();
    lastOffsets = new HashMap<>();
    topicBytes = 0;
    payloadBytes = 0;
    Function<String, byte[]> values = format.producer();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      List<Future<RecordMetadata>> inFlight = new ArrayList<>();
      for (long id = 0; id < n; id++) {
        String payload = BenchRecords.payload(id);
        byte[] value = values.apply(payload);
        topicBytes += value.length;
        payloadBytes += payload.length();
        inFlight.add(
            producer.send(
                new ProducerRecord<>(
                    topic(), (int) (id % PARTITIONS), Long.toString(id).getBytes(), value)));
        if (inFlight.size() >= 50_000) {
          drain(inFlight);
        }
      }
      producer.flush();
      drain(inFlight);
    }
    System.out.printf(
        Locale.ROOT,
        "[e2e] topic %s filled: %,d records, values %.1f MB (avg %d B, %s; JSON payload avg "
            + "%d B) in %.1f s; last offsets %s%n",
        topic(),
        n,
        topicBytes / 1e6,
        topicBytes / n,
        format.what,
        payloadBytes / n,
        (System.nanoTime() - t0) / 1e9,
        lastOffsets);
  }

  private void drain(List<Future<RecordMetadata>> inFlight) throws Exception {
    for (Future<RecordMetadata> f : inFlight) {
      RecordMetadata md = f.get();
      lastOffsets.merge(new TopicPartition(md.topic(), md.partition()), md.offset(), Math::max);
    }
    inFlight.clear();
  }

  private Map<String, String> base(String run, String delegate) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", TimedSinkConnector.class.getName());
    c.put(TimedSinkConnector.DELEGATE, delegate);
    c.put(TimedSinkConnector.RUN, run);
    c.put("tasks.max", String.valueOf(TASKS));
    c.put("topics", topic());
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", format.converter);
    c.put("value.converter.schemas.enable", String.valueOf(format != Format.PLAIN));
    c.put("consumer.override.auto.offset.reset", "earliest");
    return c;
  }

  private void start(String run, Map<String, String> config) throws InterruptedException {
    connect.configureConnector(run, config);
    connect
        .assertions()
        .assertConnectorAndExactlyNumTasksAreRunning(run, TASKS, run + " did not start");
  }

  private void stop(String run) {
    connect.deleteConnector(run);
  }

  private Result runNoop(String run) throws Exception {
    Probe probe = Probe.of(run);
    try (Resources res = new Resources()) {
      start(run, base(run, NoopSinkConnector.class.getName()));
      waitFor(() -> probe.records.get() >= n, run);
      long ms = probe.lastPutMs.get() - probe.firstPutMs.get();
      long[] task = res.threadTotals("task-thread-" + run);
      Result r =
          new Result(
              run,
              probe.records.get(),
              ms,
              0,
              0,
              0,
              res.processCpuSeconds(),
              task[0] / 1e9,
              task[1],
              res.peakUsed,
              res.peakAfterGc,
              "",
              ms);
      stop(run);
      return r;
    }
  }

  private Result runDelta(String run, boolean onS3) throws Exception {
    Probe probe = Probe.of(run);
    Map<String, String> c = base(run, "io.kcdelta.DeltaSinkConnector");
    String table;
    Configuration conf;
    if (onS3) {
      table = s3.uri("delta-" + stamp + "/" + run);
      c.putAll(s3.connectorConfig());
      c.putAll(dynamo.connectorConfig("delta_log_bench"));
      conf = s3.hadoopConf();
      conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
      conf.set(DynamoDbLogStoreKeys.TABLE_NAME, "delta_log_bench");
      conf.set(DynamoDbLogStoreKeys.ENDPOINT, dynamo.endpoint().toString());
      conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    } else {
      table = dir.resolve("delta-" + stamp).resolve(run).toUri().toString();
      conf = new Configuration();
    }
    c.put("delta.table.path", table);
    c.put("flush.interval.ms", String.valueOf(commitMs));
    try (Resources res = new Resources()) {
      start(run, c);
      Map<String, Long> want = new HashMap<>();
      lastOffsets.forEach((tp, o) -> want.put(run + "-" + tp.topic() + "-" + tp.partition(), o));
      DeltaLog[] log = new DeltaLog[1];
      waitFor(
          () -> {
            if (log[0] == null) {
              log[0] = DeltaLog.forTable(conf, table);
            }
            log[0].update();
            OptimisticTransaction txn = log[0].startTransaction();
            for (Map.Entry<String, Long> e : want.entrySet()) {
              if (txn.txnVersion(e.getKey()) < e.getValue()) {
                return false;
              }
            }
            return true;
          },
          run);
      long[] task = res.threadTotals("task-thread-" + run);
      double cpu = res.processCpuSeconds();
      Snapshot snap = log[0].update();
      long lastCommitMs = log[0].getCommitInfoAt(snap.getVersion()).getTimestamp().getTime();
      long bytes = 0;
      List<AddFile> files = snap.getAllFiles();
      for (AddFile f : files) {
        bytes += f.getSize();
      }
      Result r =
          new Result(
              run,
              probe.records.get(),
              lastCommitMs - probe.firstPutMs.get(),
              snap.getVersion() + 1,
              files.size(),
              bytes,
              cpu,
              task[0] / 1e9,
              task[1],
              res.peakUsed,
              res.peakAfterGc,
              rowsNote(snap),
              probe.lastPutMs.get() - probe.firstPutMs.get());
      stop(run);
      return r;
    }
  }

  private static String rowsNote(Snapshot snap) {
    return "rows " + rows(snap);
  }

  /** The rows of the snapshot's files, as their stats count them. */
  static long rows(Snapshot snap) {
    long rows = 0;
    for (AddFile f : snap.getAllFiles()) {
      String s = f.getStats();
      int i = s.indexOf("\"numRecords\":");
      if (i >= 0) {
        int j = i + 13;
        int k = j;
        while (k < s.length() && Character.isDigit(s.charAt(k))) {
          k++;
        }
        rows += Long.parseLong(s.substring(j, k));
      }
    }
    return rows;
  }

  private Result runIceberg(String run, boolean onS3) throws Exception {
    Probe probe = Probe.of(run);
    Map<String, String> c = base(run, "org.apache.iceberg.connect.IcebergSinkConnector");
    String warehouse;
    Configuration conf;
    if (onS3) {
      warehouse = s3.uri("iceberg-" + stamp);
      conf = s3.hadoopConf();
      for (Map.Entry<String, String> e : conf.getPropsWithPrefix("fs.s3a.").entrySet()) {
        c.put("iceberg.hadoop.fs.s3a." + e.getKey(), e.getValue());
      }
    } else {
      warehouse = dir.resolve("iceberg-" + stamp).toUri().toString();
      conf = new Configuration();
    }
    String tableName = run.replace('-', '_');
    c.put("iceberg.tables", "bench." + tableName);
    c.put("iceberg.tables.auto-create-enabled", "true");
    // Same codec as ours (Iceberg's default is zstd).
    c.put("iceberg.tables.auto-create-props.write.parquet.compression-codec", "snappy");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse);
    c.put("iceberg.control.topic", "control-" + run);
    c.put("iceberg.control.commit.interval-ms", String.valueOf(commitMs));
    c.put("iceberg.kafka.bootstrap.servers", connect.kafka().bootstrapServers());
    connect.kafka().createTopic("control-" + run, 1);
    String location = warehouse + "/bench/" + tableName;
    try (Resources res = new Resources()) {
      start(run, c);
      HadoopTables tables = new HadoopTables(conf);
      Table[] t = new Table[1];
      waitFor(
          () -> {
            try {
              if (t[0] == null) {
                t[0] = tables.load(location);
              }
              t[0].refresh();
              org.apache.iceberg.Snapshot s = t[0].currentSnapshot();
              return s != null
                  && Long.parseLong(s.summary().getOrDefault("total-records", "0")) >= n;
            } catch (org.apache.iceberg.exceptions.NoSuchTableException e) {
              return false;
            }
          },
          run);
      long[] task = res.threadTotals("task-thread-" + run);
      double cpu = res.processCpuSeconds();
      org.apache.iceberg.Snapshot last = t[0].currentSnapshot();
      int snapshots = 0;
      for (org.apache.iceberg.Snapshot s : t[0].snapshots()) {
        snapshots++;
      }
      int files = 0;
      long bytes = 0;
      try (CloseableIterable<FileScanTask> tasks = t[0].newScan().planFiles()) {
        for (FileScanTask f : tasks) {
          files++;
          bytes += f.file().fileSizeInBytes();
        }
      }
      Result r =
          new Result(
              run,
              probe.records.get(),
              last.timestampMillis() - probe.firstPutMs.get(),
              snapshots,
              files,
              bytes,
              cpu,
              task[0] / 1e9,
              task[1],
              res.peakUsed,
              res.peakAfterGc,
              "rows " + last.summary().get("total-records"),
              probe.lastPutMs.get() - probe.firstPutMs.get());
      stop(run);
      return r;
    }
  }

  interface Check {
    boolean ok() throws Exception;
  }

  private void waitFor(Check check, String run) throws Exception {
    long deadline =
        System.currentTimeMillis() + Math.max(300_000, n / 2); // ≥ 500 records/s or 5 min
    while (!check.ok()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            run + " did not finish in time; probe saw " + Probe.of(run).records.get());
      }
      // The end time comes from the commit's own timestamp, so polling slowly loses nothing (and
      // costs less CPU).
      Thread.sleep(2000);
    }
  }

  private void print(Result r) {
    System.out.printf(
        Locale.ROOT,
        "[e2e] %-17s %,10.0f rec/s %7.2f MB/s (topic bytes) %6.2f MB/s (payload) "
            + "time %6.1f s | commits %d, files %d, %.1f MB (avg %.1f MB) | process CPU %.1f s, task threads CPU "
            + "%.1f s, alloc %.0f B/rec | heap peak %d MB (after GC %d MB) | last record handed to put() at %.1f s | %s%n",
        r.run(),
        r.rps(),
        topicBytes / 1e3 / r.ms(),
        payloadBytes / 1e3 / r.ms(),
        r.ms() / 1e3,
        r.commits(),
        r.files(),
        r.fileBytes() / 1e6,
        r.files() == 0 ? 0 : r.fileBytes() / 1e6 / r.files(),
        r.cpuSec(),
        r.taskCpuSec(),
        (double) r.taskAllocBytes() / r.records(),
        r.heapPeak() >> 20,
        r.heapPeakAfterGc() >> 20,
        r.lastPutMs() / 1e3,
        r.note());
  }

  private void summary(String f) {
    System.out.println("[e2e] ratios, " + f + " (same run; >1 means ours is faster):");
    ratio("delta-file-" + f, "iceberg-file-" + f, 1.5);
    ratio("delta-s3a-" + f, "iceberg-s3a-" + f, 1.5);
    ratio("delta-file-" + f, "noop-" + f, 0.8);
    ratio("delta-s3a-" + f, "noop-" + f, 0.8);
  }

  private void ratio(String ours, String other, double target) {
    Result a = results.get(ours);
    Result b = results.get(other);
    if (a == null || b == null) {
      return;
    }
    double wall = a.rps() / b.rps();
    double cpu = (b.cpuSec() / b.records()) / (a.cpuSec() / a.records());
    double intake = (double) b.lastPutMs() / a.lastPutMs();
    System.out.printf(
        Locale.ROOT,
        "[e2e]   %-17s / %-17s records/s %.2f (target >= %.1f: %s); process CPU per record "
            + "%.2f; intake rate (first to last record handed to put: steady state) %.2f (%s)%n",
        ours,
        other,
        wall,
        target,
        verdict(wall, target),
        cpu,
        intake,
        verdict(intake, target));
  }

  private static String verdict(double ratio, double target) {
    return ratio >= target ? "met" : "NOT met";
  }
}
