package io.kcdelta.tools;

import io.kcdelta.aws.AwsAuthFailures;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.logstore.S3ConditionalLogStore;
import io.kcdelta.schema.JsonParser;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code bin/delta-sink-status}: what a Delta table written by this connector holds (versions,
 * files, rows) and, per Kafka partition, the offset its txn records, with the partition's end
 * offset and lag when Kafka is reachable. Reads the table the way the connector does, with the
 * connector's own settings (S3, DynamoDB, credentials), from the plugin's jars.
 */
public final class DeltaSinkStatus {
  static final String USAGE =
      """
      Usage: delta-sink-status [options] <table-uri>
        <table-uri>                the table root, e.g. s3a://bucket/warehouse/orders or file:///data/orders
        --config FILE              the connector's config (the JSON posted to Connect, or a .properties
                                   file): S3, DynamoDB, credentials, log store and txn prefix settings
        --set KEY=VALUE            one connector setting, over --config (repeatable), e.g.
                                   --set s3.endpoint=http://127.0.0.1:9000 --set s3.path.style.access=true
        --bootstrap-servers H:P    Kafka: adds each partition's end offset and lag
        --kafka-property K=V       a Kafka client setting, e.g. security.protocol=SSL (repeatable)
        --versions N               how many of the latest versions to list (default 10)
        --json                     one JSON object instead of text
      Credentials: the connector's (aws.* from --config or --set: static keys, else the AWS default
      chain; aws.assume.role.arn on top); the identity S3 and DynamoDB act as is printed. Exit
      status: 0, 1 table unreadable or Kafka unreachable, 2 bad arguments.""";

  private DeltaSinkStatus() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** The parsed command line. */
  record Options(
      String table,
      Map<String, String> connector,
      String bootstrapServers,
      Map<String, String> kafka,
      int versions,
      boolean json) {}

  /** Runs the command; returns its exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options o;
    try {
      o = parse(args);
    } catch (IllegalArgumentException | IOException e) {
      err.println("delta-sink-status: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (o == null) {
      out.println(USAGE);
      return 0;
    }
    DeltaSinkConfig config;
    try {
      config = new DeltaSinkConfig(o.connector());
    } catch (RuntimeException e) {
      err.println("delta-sink-status: bad connector settings: " + e.getMessage());
      return 2;
    }
    TableStatus table;
    Configuration conf = HadoopConfigurationFactory.create(config);
    // Reads only: no probe object written by the s3-conditional store's checks.
    conf.setBoolean(S3ConditionalLogStore.READ_ONLY, true);
    String identity;
    try {
      identity = HadoopConfigurationFactory.awsIdentity(config, conf);
    } catch (RuntimeException e) {
      identity = "unknown (" + e.getMessage() + ")";
    }
    try {
      table = TableStatus.read(conf, o.table(), o.versions());
    } catch (Exception e) {
      // Exception, not RuntimeException: a log store may let a checked IOException escape
      // undeclared through Kernel's reads, e.g. a refusal by DynamoDB.
      err.println(
          "delta-sink-status: cannot read the Delta table "
              + o.table()
              + ": "
              + AwsAuthFailures.explain(e, conf, o.table()).orElse(e.toString()));
      if (identity != null) {
        err.println("delta-sink-status: " + identity);
      }
      return 1;
    }
    Set<String> prefixes = new LinkedHashSet<>();
    prefixes.add(config.txnAppIdPrefix());
    List<String> topics = new ArrayList<>();
    List<StatusReport.Offset> offsets = new ArrayList<>();
    if (o.bootstrapServers() != null) {
      try (KafkaEndOffsets kafka = new KafkaEndOffsets(o.bootstrapServers(), o.kafka())) {
        topics.addAll(kafka.topics());
        table
            .txns()
            .forEach(
                t ->
                    offsets.add(StatusReport.offset(t, table.partitionsNamed(), prefixes, topics)));
        Map<TopicPartition, Long> ends =
            kafka.endOffsets(
                offsets.stream()
                    .map(StatusReport.Offset::topicPartition)
                    .filter(Objects::nonNull)
                    .toList());
        offsets.replaceAll(x -> StatusReport.withEnd(x, ends));
      } catch (Exception e) {
        err.println(
            "delta-sink-status: cannot read the end offsets from Kafka at "
                + o.bootstrapServers()
                + ": "
                + e);
        return 1;
      }
    } else {
      table
          .txns()
          .forEach(
              t -> offsets.add(StatusReport.offset(t, table.partitionsNamed(), prefixes, topics)));
    }
    if (o.json()) {
      StatusReport.json(table, offsets, identity, out);
    } else {
      StatusReport.text(table, offsets, o.bootstrapServers() != null, identity, out);
    }
    return 0;
  }

  /** Null: help was asked for. */
  static Options parse(String[] args) throws IOException {
    Map<String, String> connector = new LinkedHashMap<>();
    Map<String, String> sets = new LinkedHashMap<>();
    Map<String, String> kafka = new LinkedHashMap<>();
    String table = null;
    String bootstrap = null;
    int versions = 10;
    boolean json = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "-h", "--help" -> {
          return null;
        }
        case "--json" -> json = true;
        case "--config" -> connector.putAll(connectorConfig(Path.of(value(args, ++i, a))));
        case "--set" -> put(sets, value(args, ++i, a), a);
        case "--kafka-property" -> put(kafka, value(args, ++i, a), a);
        case "--bootstrap-servers" -> bootstrap = value(args, ++i, a);
        case "--versions" -> {
          try {
            versions = Integer.parseInt(value(args, ++i, a));
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--versions takes a number");
          }
        }
        default -> {
          if (a.startsWith("-")) {
            throw new IllegalArgumentException("unknown option " + a);
          }
          if (table != null) {
            throw new IllegalArgumentException("one table at a time: " + table + ", " + a);
          }
          table = a;
        }
      }
    }
    if (table == null) {
      throw new IllegalArgumentException("the table's URI is missing");
    }
    connector.putAll(sets);
    connector.put(DeltaSinkConfig.TABLE_PATH, table);
    connector.putIfAbsent("name", "delta-sink-status");
    return new Options(table, connector, bootstrap, kafka, versions, json);
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static void put(Map<String, String> into, String keyValue, String option) {
    int eq = keyValue.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(option + " takes KEY=VALUE, not " + keyValue);
    }
    into.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
  }

  /**
   * A connector config file: the JSON posted to Connect ({@code {"name":…,"config":{…}}} or the
   * bare config object) or a .properties file.
   */
  @SuppressWarnings("unchecked")
  static Map<String, String> connectorConfig(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Map<String, String> config = new LinkedHashMap<>();
    if (text.trim().startsWith("{")) {
      Object parsed;
      try {
        parsed = JsonParser.parse(text);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + " is not JSON: " + e.getMessage());
      }
      Map<String, Object> root = (Map<String, Object>) parsed;
      Object inner = root.get("config");
      if (inner instanceof Map<?, ?> m) {
        m.forEach((k, v) -> config.put(String.valueOf(k), String.valueOf(v)));
        if (root.get("name") != null) {
          config.putIfAbsent("name", String.valueOf(root.get("name")));
        }
      } else {
        root.forEach((k, v) -> config.put(k, String.valueOf(v)));
      }
    } else {
      Properties p = new Properties();
      p.load(new StringReader(text));
      p.forEach((k, v) -> config.put(String.valueOf(k), String.valueOf(v)));
    }
    return config;
  }
}
