package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The examples in config/ use only the public config names of DESIGN.md (the contract) and
 * Connect's own keys, with allowed values; config/quickstart-s3.json matches bin/quickstart's
 * default ports. Once the connector exists, every key is also checked against its ConfigDef.
 */
class ConfigExamplesTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static final String CONNECTOR_CLASS = "io.kcdelta.DeltaSinkConnector";

  /** DESIGN.md, "Public configuration", and the names it gives the next capabilities. */
  private static final Set<String> CONTRACT =
      Set.of(
          "delta.table.path",
          "delta.table.partition.columns",
          "delta.table.auto.create",
          "delta.schema.evolution",
          "delta.txn.app.id",
          "flush.interval.ms",
          "file.max.bytes",
          "parquet.compression.codec",
          "delta.log.store",
          "dynamodb.table.name",
          "dynamodb.region",
          "dynamodb.endpoint",
          "dynamodb.table.auto.create",
          "s3.region",
          "s3.endpoint",
          "s3.path.style.access",
          "aws.access.key.id",
          "aws.secret.access.key",
          "aws.session.token",
          "aws.assume.role.arn",
          "aws.assume.role.session.name",
          "aws.assume.role.external.id",
          "aws.assume.role.duration.seconds",
          "aws.sts.region",
          "aws.sts.endpoint",
          "dynamodb.assume.role.arn",
          "dynamodb.assume.role.external.id",
          "behavior.on.null.values",
          "delta.commit.group",
          "delta.schemaless.unknown.fields",
          "delta.record.metadata.columns",
          "delta.record.metadata.column",
          "delta.record.key.column",
          "delta.record.timestamp.date.column",
          "compaction.enabled",
          "compaction.target.file.bytes",
          "compaction.min.input.files",
          "compaction.interval.ms",
          "orphan.retention.ms");

  private static final Set<String> CONNECT_KEYS =
      Set.of(
          "name",
          "connector.class",
          "tasks.max",
          "topics",
          "topics.regex",
          "key.converter",
          "value.converter",
          "header.converter",
          "transforms",
          "predicates");
  private static final List<String> CONNECT_PREFIXES =
      List.of(
          "key.converter.",
          "value.converter.",
          "header.converter.",
          "errors.",
          "transforms.",
          "predicates.",
          "consumer.override.");

  static Map<String, Map<String, String>> examples() throws IOException {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(ROOT.resolve("config"))) {
      for (Path f : files.sorted().toList()) {
        String name = f.getFileName().toString();
        Map<String, String> config = new LinkedHashMap<>();
        if (name.endsWith(".json")) {
          JsonNode root = json.readTree(f.toFile());
          assertNotNull(root.get("name"), name + ": POST /connectors body needs \"name\"");
          assertNotNull(root.get("config"), name + ": POST /connectors body needs \"config\"");
          root.get("config")
              .fields()
              .forEachRemaining(
                  e -> {
                    assertTrue(
                        e.getValue().isTextual(),
                        name + ": " + e.getKey() + " must be a JSON string");
                    config.put(e.getKey(), e.getValue().asText());
                  });
          config.put("name", root.get("name").asText());
        } else if (name.endsWith(".properties") && !name.startsWith("connect-")) {
          Properties p = new Properties();
          try (Reader r = Files.newBufferedReader(f)) {
            p.load(r);
          }
          p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
        } else {
          continue;
        }
        out.put(name, config);
      }
    }
    return out;
  }

  @Test
  void theExpectedExamplesExist() throws IOException {
    assertEquals(
        Set.of(
            "quickstart-s3.json",
            "s3-dynamodb-aws.json",
            "s3-conditional-aws.json",
            "s3-dynamodb-assume-role.json",
            "local-filesystem.json",
            "local-schemaless-json.json",
            "docker-s3-avro.json",
            "delta-sink-standalone.properties"),
        examples().keySet());
    assertTrue(Files.exists(ROOT.resolve("config/connect-distributed.properties")));
    assertTrue(Files.exists(ROOT.resolve("config/connect-standalone.properties")));
  }

  @Test
  void examplesUseOnlyContractKeysAndAllowedValues() throws IOException {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> ex : examples().entrySet()) {
      String file = ex.getKey();
      Map<String, String> c = ex.getValue();
      for (String key : c.keySet()) {
        boolean known =
            CONTRACT.contains(key)
                || CONNECT_KEYS.contains(key)
                || key.startsWith("hadoop.")
                || CONNECT_PREFIXES.stream().anyMatch(key::startsWith);
        if (!known) {
          problems.add(file + ": unknown key " + key);
        }
      }
      if (!CONNECTOR_CLASS.equals(c.get("connector.class"))) {
        problems.add(file + ": connector.class must be " + CONNECTOR_CLASS);
      }
      check(
          problems,
          file,
          c,
          "parquet.compression.codec",
          Set.of("snappy", "zstd", "gzip", "lz4_raw", "uncompressed"));
      check(
          problems, file, c, "delta.log.store", Set.of("dynamodb", "s3-conditional", "filesystem"));
      check(problems, file, c, "behavior.on.null.values", Set.of("ignore", "fail"));
      check(problems, file, c, "delta.schema.evolution", Set.of("none", "add-columns"));
      String path = c.get("delta.table.path");
      if (path == null) {
        problems.add(file + ": delta.table.path is required");
        continue;
      }
      String scheme = URI.create(path.replace("${topic}", "topic")).getScheme();
      String store =
          c.getOrDefault("delta.log.store", "s3a".equals(scheme) ? "dynamodb" : "filesystem");
      if ("s3a".equals(scheme) && !Set.of("dynamodb", "s3-conditional").contains(store)) {
        problems.add(
            file
                + ": an s3a:// table needs delta.log.store=dynamodb or s3-conditional (S3 has no"
                + " atomic rename)");
      } else if ("file".equals(scheme) && !"filesystem".equals(store)) {
        problems.add(file + ": a file:// table uses delta.log.store=filesystem");
      } else if (!Set.of("s3a", "file").contains(scheme)) {
        problems.add(file + ": delta.table.path scheme must be s3a or file: " + path);
      }
      if (c.containsKey("s3.endpoint") && !"true".equals(c.get("s3.path.style.access"))) {
        problems.add(file + ": an S3-compatible endpoint needs s3.path.style.access=true");
      }
      if ("org.apache.kafka.connect.json.JsonConverter".equals(c.get("value.converter"))
          && !"true".equals(c.get("value.converter.schemas.enable"))
          && !file.contains("schemaless")) {
        problems.add(
            file
                + ": JsonConverter without schemas.enable=true gives schemaless records: name the"
                + " example *schemaless*, as local-schemaless-json.json");
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  private static void check(
      List<String> problems, String file, Map<String, String> c, String key, Set<String> allowed) {
    if (c.containsKey(key) && !allowed.contains(c.get(key))) {
      problems.add(file + ": " + key + "=" + c.get(key) + " is not one of " + allowed);
    }
  }

  @Test
  void quickstartConfigMatchesTheScriptsDefaultPorts() throws IOException {
    String script = Files.readString(ROOT.resolve("bin/quickstart"));
    Map<String, String> c = examples().get("quickstart-s3.json");
    assertEquals("http://127.0.0.1:" + defaultPort(script, "QS_S3_PORT"), c.get("s3.endpoint"));
    assertEquals(
        "http://127.0.0.1:" + defaultPort(script, "QS_DYNAMODB_PORT"), c.get("dynamodb.endpoint"));
    // the script rewrites exactly these literals when ports are overridden
    assertTrue(script.contains("127\\.0\\.0\\.1:" + defaultPort(script, "QS_S3_PORT") + "#"));
    assertTrue(script.contains("127\\.0\\.0\\.1:" + defaultPort(script, "QS_DYNAMODB_PORT") + "#"));
    assertTrue(script.contains("s3proxy.identity=" + c.get("aws.access.key.id")));
    assertTrue(script.contains("s3proxy.credential=" + c.get("aws.secret.access.key")));
    URI table = URI.create(c.get("delta.table.path"));
    assertTrue(
        script.contains("BUCKET=" + table.getHost()),
        "bin/quickstart creates the bucket " + table.getHost());
    assertTrue(
        script.contains("TABLE_KEY=" + table.getPath().substring(1)),
        "bin/quickstart reports that table");
    assertTrue(script.contains("TOPIC=" + c.get("topics")));
  }

  private static String defaultPort(String script, String var) {
    Matcher m = Pattern.compile(var + ":-(\\d+)").matcher(script);
    if (!m.find()) {
      fail("bin/quickstart has no default for " + var);
    }
    return m.group(1);
  }

  @Test
  void workerConfigsHaveWhatAWorkerNeeds() throws IOException {
    Properties d = load("config/connect-distributed.properties");
    for (String k :
        List.of(
            "bootstrap.servers",
            "group.id",
            "config.storage.topic",
            "offset.storage.topic",
            "status.storage.topic",
            "key.converter",
            "value.converter",
            "plugin.path")) {
      assertNotNull(d.getProperty(k), "connect-distributed.properties lacks " + k);
    }
    Properties s = load("config/connect-standalone.properties");
    for (String k :
        List.of(
            "bootstrap.servers",
            "offset.storage.file.filename",
            "key.converter",
            "value.converter",
            "plugin.path")) {
      assertNotNull(s.getProperty(k), "connect-standalone.properties lacks " + k);
    }
  }

  private static Properties load(String file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(ROOT.resolve(file))) {
      p.load(r);
    }
    return p;
  }

  /** When the connector class exists: every non-Connect key of the examples is in its ConfigDef. */
  @Test
  void examplesKeysAreDefinedByTheConnector() throws Exception {
    Class<?> cls;
    try {
      cls = Class.forName(CONNECTOR_CLASS);
    } catch (ClassNotFoundException e) {
      Assumptions.abort(CONNECTOR_CLASS + " not written yet");
      return;
    }
    ConfigDef def =
        (ConfigDef) cls.getMethod("config").invoke(cls.getDeclaredConstructor().newInstance());
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> ex : examples().entrySet()) {
      for (String key : ex.getValue().keySet()) {
        boolean connect =
            CONNECT_KEYS.contains(key) || CONNECT_PREFIXES.stream().anyMatch(key::startsWith);
        if (!connect && !key.startsWith("hadoop.") && !def.names().contains(key)) {
          problems.add(
              ex.getKey() + ": " + key + " is not defined by " + CONNECTOR_CLASS + ".config()");
        }
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }
}
