package io.kcdelta.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Sanitizer;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * The one JVM helper of bin/quickstart (each extra CLI JVM costs seconds):
 *
 * <pre>
 *   produce --bootstrap HOST:PORT --topic T --partitions P --records N
 *       creates the topic if absent, sends N sample orders as JSON with a schema envelope
 *       (made by Connect's own JsonConverter, so the envelope is exactly what the sink reads back)
 *   report --table-dir DIR --bootstrap HOST:PORT --topic T [--connect URL --connector NAME]
 *          [--expect N] [--timeout SECONDS]
 *       waits until the Delta table holds N rows (progress every few seconds; fails fast if the
 *       connector or a task FAILED), then checks the rows and the txn offset of every partition
 *       against the topic's end offsets (bin/delta-sink-status prints them). Exit 0 = all rows
 *       landed exactly once.
 *   metrics --table-dir DIR --connector NAME --jmx HOST:PORT,... [--connect URL,...]
 *           [--worker-logs FILE,...] [--expect-connect-version V] [--timeout SECONDS] [--summary FILE]
 *       asks each worker's REST API for its Connect version, reads from the worker logs what the task
 *       detected ("Connect API: ..."), and sums commits-total and committed-rows-total over the
 *       kafka.connect:type=plugins,connector=NAME,task=* MBeans of every worker's JMX (and the
 *       table and partition MBeans below them). Exit 0 only if commits-total > 0, committed-rows-total
 *       of the tasks and of their table MBeans = the rows in the table, and each partition MBean's
 *       committed-offset = its txn version with no uncommitted records (polled until the timeout:
 *       a task records its metrics just after its commit lands). --summary writes the figures as
 *       key=value lines (read by bin/compat-test).
 * </pre>
 *
 * The table is read straight from s3proxy's filesystem back-end (objects are plain files there).
 */
public final class QuickstartHelper {
  private static final ObjectMapper JSON = new ObjectMapper();

  private QuickstartHelper() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
    }
    Map<String, String> opts = options(args);
    int rc;
    switch (args[0]) {
      case "produce" -> rc = produce(opts);
      case "report" -> rc = report(opts);
      case "metrics" -> rc = metrics(opts);
      default -> {
        usage();
        rc = 2;
      }
    }
    System.exit(rc);
  }

  private static void usage() {
    System.err.println(
        "usage: QuickstartHelper produce|report|metrics --option value ...  (see the class comment)");
    System.exit(2);
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        usage();
      }
      opts.put(args[i].substring(2), args[i + 1]);
    }
    return opts;
  }

  private static String required(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null) {
      System.err.println("missing --" + key);
      System.exit(2);
    }
    return v;
  }

  // ---------------------------------------------------------------- produce

  static final Schema CUSTOMER =
      SchemaBuilder.struct()
          .name("io.kcdelta.quickstart.Customer")
          .field("customer_id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("email", Schema.OPTIONAL_STRING_SCHEMA)
          .field("loyalty_tier", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  static final Schema LINE_ITEM =
      SchemaBuilder.struct()
          .name("io.kcdelta.quickstart.LineItem")
          .field("sku", Schema.STRING_SCHEMA)
          .field("quantity", Schema.INT32_SCHEMA)
          .field("unit_price", decimal(10, 2))
          .build();

  static final Schema ORDER =
      SchemaBuilder.struct()
          .name("io.kcdelta.quickstart.Order")
          .version(1)
          .field("order_id", Schema.STRING_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .field("status", Schema.STRING_SCHEMA)
          .field("customer", CUSTOMER)
          .field("amount", decimal(12, 2))
          .field("currency", Schema.STRING_SCHEMA)
          .field("order_ts", Timestamp.SCHEMA)
          .field("ship_date", org.apache.kafka.connect.data.Date.builder().optional().build())
          .field("items", SchemaBuilder.array(LINE_ITEM).build())
          .field("coupon_code", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  private static Schema decimal(int precision, int scale) {
    return Decimal.builder(scale)
        .parameter("connect.decimal.precision", Integer.toString(precision))
        .build();
  }

  private static final String[] REGIONS = {"eu-west", "us-east", "ap-south"};
  private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};
  private static final String[] NAMES = {
    "Ada Lovelace",
    "Alan Turing",
    "Grace Hopper",
    "Edsger Dijkstra",
    "Barbara Liskov",
    "Donald Knuth",
    "Frances Allen",
    "Ken Thompson",
    "Margaret Hamilton",
    "John Backus"
  };
  private static final String[] TIERS = {null, "silver", "gold", "platinum"};

  static Struct order(long n, Random random, Instant base) {
    long customerId = 1000 + random.nextInt(500);
    String name = NAMES[(int) (customerId % NAMES.length)];
    Struct customer =
        new Struct(CUSTOMER)
            .put("customer_id", customerId)
            .put("name", name)
            .put(
                "email",
                customerId % 7 == 0 ? null : name.toLowerCase().replace(' ', '.') + "@example.com")
            .put("loyalty_tier", TIERS[(int) (customerId % TIERS.length)]);
    List<Struct> items = new ArrayList<>();
    BigDecimal total = BigDecimal.ZERO.setScale(2);
    int lines = 1 + random.nextInt(4);
    for (int i = 0; i < lines; i++) {
      BigDecimal price = BigDecimal.valueOf(99 + random.nextInt(20000), 2);
      int qty = 1 + random.nextInt(5);
      items.add(
          new Struct(LINE_ITEM)
              .put("sku", "SKU-" + (10000 + random.nextInt(900)))
              .put("quantity", qty)
              .put("unit_price", price));
      total = total.add(price.multiply(BigDecimal.valueOf(qty)));
    }
    Instant ts = base.plusMillis(n * 250 + random.nextInt(250));
    String status = STATUS[random.nextInt(STATUS.length)];
    LocalDate ship =
        status.equals("SHIPPED") || status.equals("DELIVERED")
            ? ts.atZone(ZoneOffset.UTC).toLocalDate().plusDays(1 + random.nextInt(3))
            : null;
    return new Struct(ORDER)
        .put("order_id", String.format("ord-%08d", n))
        .put("region", REGIONS[random.nextInt(REGIONS.length)])
        .put("status", status)
        .put("customer", customer)
        .put("amount", total.setScale(2, RoundingMode.UNNECESSARY))
        .put("currency", "EUR")
        .put("order_ts", Date.from(ts))
        .put(
            "ship_date",
            ship == null ? null : Date.from(ship.atStartOfDay(ZoneOffset.UTC).toInstant()))
        .put("items", items)
        .put("coupon_code", random.nextInt(10) == 0 ? "WELCOME10" : null);
  }

  private static int produce(Map<String, String> opts) throws Exception {
    String bootstrap = required(opts, "bootstrap");
    String topic = required(opts, "topic");
    int partitions = Integer.parseInt(opts.getOrDefault("partitions", "3"));
    long records = Long.parseLong(opts.getOrDefault("records", "3000"));
    long t0 = System.nanoTime();

    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      try {
        admin
            .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
        System.out.printf("    created topic %s (%d partitions)%n", topic, partitions);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
        System.out.printf("    topic %s exists%n", topic);
      }
    }

    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true", "decimal.format", "NUMERIC"), false);
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    Random random = new Random(42);
    Instant base = Instant.now().minus(Duration.ofDays(1));
    byte[] example = null;
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      for (long n = 0; n < records; n++) {
        Struct value = order(n, random, base);
        byte[] bytes = converter.fromConnectData(topic, ORDER, value);
        if (example == null) {
          example = bytes;
        }
        producer.send(
            new ProducerRecord<>(topic, value.getString("order_id"), bytes),
            (md, e) -> {
              if (e != null) {
                System.err.println("send failed: " + e);
                System.exit(1);
              }
            });
      }
      producer.flush();
    }
    System.out.printf(
        "    produced %d records in %.1f s; the first one (payload):%n",
        records, (System.nanoTime() - t0) / 1e9);
    JsonNode first = JSON.readTree(example);
    System.out.println("    " + JSON.writeValueAsString(first.get("payload")));
    return 0;
  }

  // ---------------------------------------------------------------- report

  /** What the Delta log says, from replaying the JSON commit files. */
  static final class Table {
    final TreeMap<Long, Commit> commits = new TreeMap<>();
    final Map<String, JsonNode> activeFiles = new LinkedHashMap<>();
    final TreeMap<String, Long> txn = new TreeMap<>();
    long rows;
    String partitionColumns = "";
  }

  record Commit(
      long version,
      String operation,
      long timestamp,
      int adds,
      int removes,
      long rows,
      long bytes,
      Map<String, Long> txn) {}

  static Table readTable(Path tableDir) throws IOException {
    Table table = new Table();
    Path log = tableDir.resolve("_delta_log");
    if (!Files.isDirectory(log)) {
      return table;
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(log)) {
      files =
          s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
              .sorted()
              .collect(Collectors.toList());
    }
    for (Path f : files) {
      long version = Long.parseLong(f.getFileName().toString().substring(0, 20));
      String op = "?";
      long ts = 0;
      int adds = 0;
      int removes = 0;
      long rows = 0;
      long bytes = 0;
      Map<String, Long> txn = new TreeMap<>();
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode action = JSON.readTree(line);
        if (action.has("commitInfo")) {
          op = action.get("commitInfo").path("operation").asText("?");
          ts = action.get("commitInfo").path("timestamp").asLong(0);
        } else if (action.has("metaData")) {
          JsonNode pc = action.get("metaData").path("partitionColumns");
          List<String> cols = new ArrayList<>();
          pc.forEach(c -> cols.add(c.asText()));
          table.partitionColumns = String.join(",", cols);
        } else if (action.has("add")) {
          JsonNode add = action.get("add");
          adds++;
          bytes += add.path("size").asLong(0);
          long n = numRecords(add);
          rows += n;
          table.activeFiles.put(add.path("path").asText(), add);
        } else if (action.has("remove")) {
          removes++;
          table.activeFiles.remove(action.get("remove").path("path").asText());
        } else if (action.has("txn")) {
          JsonNode t = action.get("txn");
          txn.put(t.path("appId").asText(), t.path("version").asLong());
          table.txn.put(t.path("appId").asText(), t.path("version").asLong());
        }
      }
      table.commits.put(version, new Commit(version, op, ts, adds, removes, rows, bytes, txn));
    }
    table.rows = table.activeFiles.values().stream().mapToLong(QuickstartHelper::numRecords).sum();
    return table;
  }

  /** stats must be a JSON string (see LAB.md); accept an object too, but say so. */
  static long numRecords(JsonNode add) {
    JsonNode stats = add.get("stats");
    if (stats == null || stats.isNull()) {
      return 0;
    }
    try {
      JsonNode parsed = stats.isTextual() ? JSON.readTree(stats.asText()) : stats;
      return parsed.path("numRecords").asLong(0);
    } catch (IOException e) {
      return 0;
    }
  }

  private static int report(Map<String, String> opts) throws Exception {
    Path tableDir = Path.of(required(opts, "table-dir"));
    String bootstrap = required(opts, "bootstrap");
    String topic = required(opts, "topic");
    String connect = opts.get("connect");
    String connector = opts.get("connector");
    long expect = Long.parseLong(opts.getOrDefault("expect", "0"));
    long timeoutS = Long.parseLong(opts.getOrDefault("timeout", "180"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutS);
    Table table = readTable(tableDir);
    long lastPrint = 0;
    String lastError = null;
    List<Path> workerLogs = new ArrayList<>();
    for (String f : opts.getOrDefault("worker-logs", "").split(",")) {
      if (!f.isBlank()) {
        workerLogs.add(Path.of(f));
      }
    }
    while (table.rows < expect) {
      long now = System.nanoTime();
      if (connect != null && connector != null) {
        String failure = connectorFailure(http, connect, connector);
        if (failure != null) {
          System.out.println();
          System.err.println("FAILED: connector " + connector + " reports a failure:\n" + failure);
          return 1;
        }
      }
      if (now - lastPrint > TimeUnit.SECONDS.toNanos(3)) {
        System.out.printf(
            "    [%3.0f s] Delta table: %d version(s), %d file(s), %d/%d rows committed%n",
            (now - t0) / 1e9, table.commits.size(), table.activeFiles.size(), table.rows, expect);
        String error = lastWorkerError(workerLogs);
        if (error != null && !error.equals(lastError)) {
          System.out.println("              latest worker ERROR: " + error);
          lastError = error;
        }
        lastPrint = now;
      }
      if (now > deadline) {
        System.err.printf(
            "FAILED: only %d of %d rows committed to %s after %d s%n",
            table.rows, expect, tableDir, timeoutS);
        return 1;
      }
      Thread.sleep(1000);
      table = readTable(tableDir);
    }
    if (expect > 0) {
      System.out.printf(
          "    all %d rows committed after %.1f s of waiting%n",
          expect, (System.nanoTime() - t0) / 1e9);
    }

    // bin/delta-sink-status prints the table (the quickstart's next step).
    return verify(table, topic, expect, endOffsets(bootstrap, topic));
  }

  /** The newest "ERROR" log line of the workers with the exception message under it, shortened. */
  static String lastWorkerError(List<Path> logs) {
    String best = null;
    String bestTime = "";
    for (Path log : logs) {
      try {
        long size = Files.size(log);
        byte[] tail;
        try (var in = Files.newInputStream(log)) {
          in.skipNBytes(Math.max(0, size - 65536));
          tail = in.readAllBytes();
        }
        String[] lines = new String(tail, StandardCharsets.UTF_8).split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
          if (lines[i].contains("] ERROR ")) {
            String time = lines[i].length() > 25 ? lines[i].substring(0, 25) : lines[i];
            if (time.compareTo(bestTime) > 0) {
              String msg = lines[i].replaceFirst("^\\[[^\\]]*\\] ERROR ", "");
              if (i + 1 < lines.length && !lines[i + 1].startsWith("[")) {
                msg =
                    lines[i + 1].trim(); // the exception and its message say more than the log line
              }
              best = msg.length() > 300 ? msg.substring(0, 300) + "..." : msg;
              bestTime = time;
            }
            break;
          }
        }
      } catch (IOException e) {
        // a log that is not there (yet) has nothing to say
      }
    }
    return best;
  }

  private static String connectorFailure(HttpClient http, String connect, String connector) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(connect + "/connectors/" + connector + "/status"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return null;
      }
      JsonNode status = JSON.readTree(r.body());
      if ("FAILED".equals(status.path("connector").path("state").asText())) {
        return status.path("connector").path("trace").asText("(no trace)");
      }
      for (JsonNode task : status.path("tasks")) {
        if ("FAILED".equals(task.path("state").asText())) {
          return "task "
              + task.path("id").asText()
              + " on "
              + task.path("worker_id").asText()
              + ":\n"
              + task.path("trace").asText("(no trace)");
        }
      }
      return null;
    } catch (IOException | InterruptedException e) {
      return null; // a worker may be busy rebalancing; the row wait has its own timeout
    }
  }

  private static Map<Integer, Long> endOffsets(String bootstrap, String topic) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
      d.partitions()
          .forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<Integer, Long> out = new TreeMap<>();
      admin
          .listOffsets(specs)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
      return out;
    }
  }

  private static int verify(Table table, String topic, long expect, Map<Integer, Long> endOffsets) {
    List<String> problems = new ArrayList<>();
    if (expect > 0 && table.rows != expect) {
      problems.add(
          "expected exactly "
              + expect
              + " rows, the table has "
              + table.rows
              + (table.rows > expect ? " (duplicates: exactly-once broken?)" : ""));
    }
    for (Map.Entry<Integer, Long> e : endOffsets.entrySet()) {
      String suffix = "-" + topic + "-" + e.getKey();
      Long version =
          table.txn.entrySet().stream()
              .filter(t -> t.getKey().endsWith(suffix))
              .map(Map.Entry::getValue)
              .findFirst()
              .orElse(null);
      if (e.getValue() > 0 && version == null) {
        problems.add(
            "no txn action for partition " + e.getKey() + " (appId ending in " + suffix + ")");
      } else if (version != null && version != e.getValue() - 1) {
        problems.add(
            "partition "
                + e.getKey()
                + ": txn version "
                + version
                + " but the last offset is "
                + (e.getValue() - 1));
      }
    }
    if (problems.isEmpty()) {
      System.out.println(
          "    check: OK (rows = records produced, txn version = last offset of every partition)");
      return 0;
    }
    problems.forEach(p -> System.err.println("FAILED: " + p));
    return 1;
  }

  // ---------------------------------------------------------------- metrics

  /** The task's start line: "Task N of connector X starting, version V; Connect API: ...". */
  private static final Pattern TASK_START =
      Pattern.compile(
          "Task (\\d+) of connector (\\S+) starting, version (\\S+); Connect API: (.*?)(?: \\((?:io\\.kcdelta\\.)[^)]*\\))?$");

  private static final String[] JMX_TABLE_METRICS = {
    "commits-total", "committed-rows-total", "last-commit-version", "committed-record-age-ms"
  };

  private static final String[] JMX_PARTITION_METRICS = {
    "committed-offset", "last-received-offset", "uncommitted-records"
  };

  private static final String[] JMX_COUNTERS = {
    "commits-total", "committed-rows-total", "records-written-total"
  };

  private static List<String> list(Map<String, String> opts, String key) {
    List<String> out = new ArrayList<>();
    for (String s : opts.getOrDefault(key, "").split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return out;
  }

  private static int metrics(Map<String, String> opts) throws Exception {
    Path tableDir = Path.of(required(opts, "table-dir"));
    String connector = required(opts, "connector");
    List<String> jmx = list(opts, "jmx");
    if (jmx.isEmpty()) {
      System.err.println("missing --jmx");
      return 2;
    }
    List<String> problems = new ArrayList<>();
    Map<String, String> summary = new LinkedHashMap<>();

    // 1. the Connect version each worker reports (GET /)
    String expectVersion = opts.get("expect-connect-version");
    TreeSet<String> versions = new TreeSet<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (String url : list(opts, "connect")) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url + "/"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode root = JSON.readTree(r.body());
        String v = root.path("version").asText("?");
        versions.add(v);
        System.out.printf(
            "    worker %s: Kafka Connect %s (commit %s)%n",
            url, v, root.path("commit").asText("?"));
        if (expectVersion != null && !expectVersion.equals(v)) {
          problems.add("worker " + url + " runs Connect " + v + ", expected " + expectVersion);
        }
      } catch (IOException | InterruptedException e) {
        problems.add("cannot ask worker " + url + " for its version: " + e);
      }
    }
    summary.put("connect.version", String.join("/", versions));

    // 2. what the tasks detected, from their start line in the worker logs
    TreeSet<String> apis = new TreeSet<>();
    for (String f : list(opts, "worker-logs")) {
      Path log = Path.of(f);
      if (!Files.exists(log)) {
        continue;
      }
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        Matcher m = TASK_START.matcher(line);
        if (m.find() && m.group(2).equals(connector)) {
          System.out.printf(
              "    %s: task %s, plugin %s; Connect API: %s%n",
              log.getFileName(), m.group(1), m.group(3), m.group(4));
          apis.add(m.group(4));
        }
      }
    }
    if (apis.isEmpty()) {
      problems.add(
          "no task start line (\"Task N of connector "
              + connector
              + " starting, ...; Connect API: ...\") in "
              + opts.getOrDefault("worker-logs", "(no --worker-logs)")
              + ": does the worker log at INFO?");
    } else if (apis.size() > 1) {
      problems.add("the tasks detected different Connect APIs: " + apis);
    }
    String api = String.join(" | ", apis);
    summary.put(
        "metrics.source",
        api.contains("plugin metrics")
            ? "plugin metrics"
            : api.contains("own JMX registry") ? "own JMX registry" : "?");
    summary.put(
        "record.coordinates",
        api.contains("before SMTs")
            ? "original (before SMTs)"
            : api.contains("after SMTs") ? "as delivered (after SMTs)" : "?");

    // 3. the table and the JMX counters, polled until they agree (or the timeout)
    long timeoutS = Long.parseLong(opts.getOrDefault("timeout", "60"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
    ObjectName pattern =
        new ObjectName(
            "kafka.connect:type=plugins,connector=" + Sanitizer.jmxSanitize(connector) + ",task=*");
    ObjectName tablePattern = new ObjectName(pattern + ",table=*");
    ObjectName partitionPattern = new ObjectName(pattern + ",topic=*,partition=*");
    Map<String, JMXConnector> connections = new LinkedHashMap<>();
    Table table;
    Map<String, Map<String, Double>> perTask;
    Map<String, Map<String, Double>> perTable;
    Map<String, Map<String, Double>> perPartition;
    double commits;
    double committedRows;
    double tableRows;
    List<String> partitionProblems;
    try {
      while (true) {
        table = readTable(tableDir);
        perTask = new TreeMap<>();
        perTable = new TreeMap<>();
        perPartition = new TreeMap<>();
        String jmxError = null;
        for (String hostPort : jmx) {
          try {
            MBeanServerConnection mbs = connect(connections, hostPort).getMBeanServerConnection();
            read(mbs, pattern, JMX_COUNTERS, hostPort, perTask);
            read(mbs, tablePattern, JMX_TABLE_METRICS, hostPort, perTable);
            read(mbs, partitionPattern, JMX_PARTITION_METRICS, hostPort, perPartition);
          } catch (Exception e) {
            jmxError = "JMX " + hostPort + ": " + e;
            JMXConnector c = connections.remove(hostPort);
            if (c != null) {
              try {
                c.close();
              } catch (IOException ignored) {
                // reconnect next round
              }
            }
          }
        }
        commits = perTask.values().stream().mapToDouble(m -> m.get("commits-total")).sum();
        committedRows =
            perTask.values().stream().mapToDouble(m -> m.get("committed-rows-total")).sum();
        tableRows =
            perTable.values().stream().mapToDouble(m -> m.get("committed-rows-total")).sum();
        partitionProblems = partitionProblems(perPartition, table);
        boolean agree =
            jmxError == null
                && commits > 0
                && committedRows == table.rows
                && tableRows == table.rows
                && partitionProblems.isEmpty()
                && table.rows > 0;
        if (agree || System.nanoTime() > deadline) {
          if (jmxError != null) {
            problems.add(jmxError);
          }
          break;
        }
        Thread.sleep(500);
      }
    } finally {
      for (JMXConnector c : connections.values()) {
        try {
          c.close();
        } catch (IOException ignored) {
          // the worker may be gone already
        }
      }
    }

    long dataCommits = table.commits.values().stream().filter(c -> c.adds() > 0).count();
    System.out.println(
        "    JMX "
            + pattern
            + "[,table=*|,topic=*,partition=*] on "
            + String.join(", ", jmx)
            + ":");
    if (perTask.isEmpty()) {
      System.out.println("      (no such MBean)");
    }
    for (Map<String, Map<String, Double>> beans : List.of(perTask, perTable, perPartition)) {
      beans.forEach(
          (name, values) ->
              System.out.printf(
                  "      %s  %s%n",
                  name,
                  values.entrySet().stream()
                      .map(e -> e.getKey() + "=" + fmt(e.getValue()))
                      .collect(Collectors.joining(" "))));
    }
    System.out.printf(
        "    sum over %d task(s): commits-total=%s committed-rows-total=%s; the table: %d rows, %d versions"
            + " (%d with data files)%n",
        perTask.size(),
        fmt(commits),
        fmt(committedRows),
        table.rows,
        table.commits.size(),
        dataCommits);
    if (!(commits > 0)) {
      problems.add("commits-total over JMX is " + fmt(commits) + ", expected > 0");
    }
    if (committedRows != table.rows) {
      problems.add(
          "committed-rows-total over JMX is "
              + fmt(committedRows)
              + " but "
              + table.rows
              + " rows landed in the table");
    }
    if (tableRows != table.rows) {
      problems.add(
          "committed-rows-total of the table MBeans over JMX is "
              + fmt(tableRows)
              + " but "
              + table.rows
              + " rows landed in the table");
    }
    problems.addAll(partitionProblems);
    summary.put("rows", Long.toString(table.rows));
    summary.put("table.versions", Integer.toString(table.commits.size()));
    summary.put("table.data.commits", Long.toString(dataCommits));
    summary.put("jmx.tasks", Integer.toString(perTask.size()));
    summary.put("jmx.commits.total", fmt(commits));
    summary.put("jmx.committed.rows.total", fmt(committedRows));
    summary.put("result", problems.isEmpty() ? "OK" : "FAILED");
    String summaryFile = opts.get("summary");
    if (summaryFile != null) {
      StringBuilder sb = new StringBuilder();
      summary.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
      Files.writeString(Path.of(summaryFile), sb.toString(), StandardCharsets.UTF_8);
    }
    if (problems.isEmpty()) {
      System.out.println(
          "    check: OK (commits-total > 0, committed-rows-total of the tasks and of their table"
              + " = rows in the table, each partition's committed-offset = its txn version and"
              + " uncommitted-records = 0)");
      return 0;
    }
    problems.forEach(p -> System.err.println("FAILED: " + p));
    return 1;
  }

  /** The attributes of every MBean matching the pattern, by "host:port name". */
  private static void read(
      MBeanServerConnection mbs,
      ObjectName pattern,
      String[] attributes,
      String hostPort,
      Map<String, Map<String, Double>> into)
      throws Exception {
    for (ObjectName name : mbs.queryNames(pattern, null)) {
      Map<String, Double> values = new LinkedHashMap<>();
      for (String attribute : attributes) {
        Object v = mbs.getAttribute(name, attribute);
        values.put(attribute, v instanceof Number n ? n.doubleValue() : Double.NaN);
      }
      into.put(hostPort + "  " + name, values);
    }
  }

  /** Each partition MBean must show its txn version as committed, and nothing uncommitted. */
  private static List<String> partitionProblems(
      Map<String, Map<String, Double>> perPartition, Table table) {
    List<String> problems = new ArrayList<>();
    if (perPartition.isEmpty()) {
      problems.add("no partition MBean (…,topic=…,partition=…) over JMX");
    }
    perPartition.forEach(
        (name, values) -> {
          ObjectName bean;
          try {
            bean = new ObjectName(name.substring(name.indexOf("  ") + 2));
          } catch (MalformedObjectNameException e) {
            problems.add("unexpected MBean name " + name);
            return;
          }
          String suffix =
              "-" + bean.getKeyProperty("topic") + "-" + bean.getKeyProperty("partition");
          Long txn =
              table.txn.entrySet().stream()
                  .filter(e -> e.getKey().endsWith(suffix))
                  .map(Map.Entry::getValue)
                  .findFirst()
                  .orElse(-1L);
          if (values.get("committed-offset") != txn.doubleValue()
              || values.get("uncommitted-records") != 0) {
            problems.add(
                name
                    + ": committed-offset "
                    + fmt(values.get("committed-offset"))
                    + " (txn version "
                    + txn
                    + "), uncommitted-records "
                    + fmt(values.get("uncommitted-records")));
          }
        });
    return problems;
  }

  /**
   * One connection per worker, opened with a time limit (a hung RMI handshake must not hang the
   * check).
   */
  private static JMXConnector connect(Map<String, JMXConnector> connections, String hostPort)
      throws Exception {
    JMXConnector c = connections.get(hostPort);
    if (c == null) {
      JMXServiceURL url =
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + hostPort + "/jmxrmi");
      c =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return JMXConnectorFactory.connect(url);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .get(10, TimeUnit.SECONDS);
      connections.put(hostPort, c);
    }
    return c;
  }

  private static String fmt(double v) {
    return v == Math.rint(v) && !Double.isInfinite(v)
        ? Long.toString((long) v)
        : Double.toString(v);
  }
}
