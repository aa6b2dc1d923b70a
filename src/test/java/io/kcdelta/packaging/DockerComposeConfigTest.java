package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docker-compose.yml and config/docker-s3-avro.json must agree: every endpoint the connector config
 * names is a compose service listening on that port, the credentials are s3proxy's, the bucket
 * exists, the workers use the Avro converter of the registry service, and the plugin volume filled
 * from target/components/packages is on both workers' plugin.path.
 */
class DockerComposeConfigTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static Map<String, Object> services;
  private static JsonNode connector;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void load() throws IOException {
    try (Reader r = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
      Map<String, Object> compose = new Yaml(new SafeConstructor(new LoaderOptions())).load(r);
      services = (Map<String, Object>) compose.get("services");
    }
    connector =
        new ObjectMapper()
            .readTree(ROOT.resolve("config/docker-s3-avro.json").toFile())
            .get("config");
    assertNotNull(services, "docker-compose.yml has no services");
    assertNotNull(connector, "config/docker-s3-avro.json has no config object");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> service(String name) {
    Object s = services.get(name);
    assertNotNull(
        s, "docker-compose.yml has no service '" + name + "'; it has " + services.keySet());
    return (Map<String, Object>) s;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> env(String name) {
    Object e = service(name).get("environment");
    assertTrue(e instanceof Map, "service " + name + " needs an environment map");
    Map<String, String> out = new java.util.HashMap<>();
    ((Map<String, Object>) e).forEach((k, v) -> out.put(k, String.valueOf(v)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static List<String> list(String name, String key) {
    Object v = service(name).get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof String s) {
      return List.of(s);
    }
    return ((List<Object>) v).stream().map(String::valueOf).toList();
  }

  /** Container ports of a service: the right side of its "host:container" mappings. */
  private static List<Integer> containerPorts(String name) {
    List<Integer> ports = new ArrayList<>();
    for (String p : list(name, "ports")) {
      String[] parts = p.split(":");
      ports.add(Integer.parseInt(parts[parts.length - 1].replaceAll("/.*", "")));
    }
    return ports;
  }

  private static String command(String name) {
    return String.join(" ", list(name, "command"));
  }

  /** The service that answers at host:port on the compose network. */
  private static void assertServiceListens(String key, String url) {
    URI uri = URI.create(url);
    String host = uri.getHost();
    int port = uri.getPort() != -1 ? uri.getPort() : ("https".equals(uri.getScheme()) ? 443 : 80);
    assertTrue(
        services.containsKey(host), key + "=" + url + ": no compose service named '" + host + "'");
    assertTrue(
        containerPorts(host).contains(port),
        key
            + "="
            + url
            + ": service '"
            + host
            + "' publishes container ports "
            + containerPorts(host)
            + ", not "
            + port);
  }

  @Test
  void servicesArePresent() {
    for (String s :
        List.of(
            "kafka",
            "schema-registry",
            "s3",
            "dynamodb",
            "connect-1",
            "connect-2",
            "plugin-install")) {
      service(s);
    }
    assertTrue(
        String.valueOf(service("kafka").get("image")).startsWith("apache/kafka:"),
        "Kafka from the apache/kafka image");
    for (String s : services.keySet()) {
      String image = String.valueOf(service(s).get("image"));
      assertFalse(
          image.contains("dynamodb-local") || image.contains("localstack"),
          s + ": DynamoDB Local (not open source, also inside localstack) must not be used");
    }
  }

  @Test
  void connectorEndpointsPointAtComposeServices() {
    for (String key :
        List.of("s3.endpoint", "dynamodb.endpoint", "value.converter.schema.registry.url")) {
      assertNotNull(connector.get(key), "config/docker-s3-avro.json lacks " + key);
      assertServiceListens(key, connector.get(key).asText());
    }
    // and those services really listen there
    int s3Port = URI.create(connector.get("s3.endpoint").asText()).getPort();
    assertEquals(
        s3Port, URI.create(env("s3").get("S3PROXY_ENDPOINT")).getPort(), "S3PROXY_ENDPOINT port");
    int dynamoPort = URI.create(connector.get("dynamodb.endpoint").asText()).getPort();
    assertTrue(
        command("dynamodb").contains("--port " + dynamoPort),
        "dynalite must listen on " + dynamoPort);
    int registryPort =
        URI.create(connector.get("value.converter.schema.registry.url").asText()).getPort();
    assertTrue(
        env("schema-registry").get("SCHEMA_REGISTRY_LISTENERS").endsWith(":" + registryPort),
        "SCHEMA_REGISTRY_LISTENERS port");
  }

  @Test
  void credentialsAndBucketMatchS3proxy() {
    Map<String, String> s3 = env("s3");
    assertEquals(s3.get("S3PROXY_IDENTITY"), connector.get("aws.access.key.id").asText());
    assertEquals(s3.get("S3PROXY_CREDENTIAL"), connector.get("aws.secret.access.key").asText());
    assertEquals(
        "true", connector.get("s3.path.style.access").asText(), "s3proxy needs path-style access");
    URI table = URI.create(connector.get("delta.table.path").asText());
    assertEquals("s3a", table.getScheme());
    String basedir = s3.get("JCLOUDS_FILESYSTEM_BASEDIR");
    assertTrue(
        command("s3-init").contains("mkdir -p " + basedir + "/" + table.getHost()),
        "s3-init must create the bucket "
            + table.getHost()
            + " under "
            + basedir
            + ": "
            + command("s3-init"));
    assertEquals("dynamodb", connector.get("delta.log.store").asText());
  }

  @Test
  void workersUseTheAvroConverterOfTheRegistryAndTheBroker() {
    Matcher internal =
        Pattern.compile("INTERNAL://([^:,]+):(\\d+)")
            .matcher(env("kafka").get("KAFKA_ADVERTISED_LISTENERS"));
    assertTrue(internal.find(), "kafka needs an INTERNAL advertised listener");
    for (String w : List.of("connect-1", "connect-2")) {
      Map<String, String> e = env(w);
      assertEquals(
          internal.group(1) + ":" + internal.group(2), e.get("CONNECT_BOOTSTRAP_SERVERS"), w);
      assertEquals(connector.get("value.converter").asText(), e.get("CONNECT_VALUE_CONVERTER"), w);
      assertEquals("io.confluent.connect.avro.AvroConverter", e.get("CONNECT_VALUE_CONVERTER"), w);
      assertEquals(
          connector.get("value.converter.schema.registry.url").asText(),
          e.get("CONNECT_VALUE_CONVERTER_SCHEMA_REGISTRY_URL"),
          w);
      assertEquals(
          w, e.get("CONNECT_REST_ADVERTISED_HOST_NAME"), w + " must advertise its own name");
      assertTrue(
          containerPorts(w).contains(Integer.parseInt(e.get("CONNECT_REST_ADVERTISED_PORT"))), w);
    }
    assertFalse(
        list("connect-1", "ports").equals(list("connect-2", "ports")),
        "workers need distinct host ports");
  }

  @Test
  void pluginVolumeIsOnBothWorkersPluginPath() throws IOException {
    // plugin-install: the assembly's output dir in, a named volume out
    String packagesMount =
        list("plugin-install", "volumes").stream()
            .filter(v -> v.startsWith("./target/components/packages:"))
            .findFirst()
            .orElse(null);
    assertNotNull(
        packagesMount,
        "plugin-install must mount ./target/components/packages (the assembly's output)");
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    assertTrue(
        pom.contains(
            "<outputDirectory>${project.build.directory}/components/packages</outputDirectory>"),
        "the assembly writes the zip to target/components/packages");
    assertTrue(
        pom.contains("<finalName>kcdelta-${project.artifactId}-${project.version}</finalName>"));
    assertTrue(
        command("plugin-install").contains("kcdelta-kafka-connect-delta-*.zip"),
        "unzips the plugin zip");
    String volume =
        list("plugin-install", "volumes").stream()
            .filter(v -> !v.startsWith("./"))
            .map(v -> v.split(":")[0])
            .findFirst()
            .orElseThrow();
    for (String w : List.of("connect-1", "connect-2")) {
      String target =
          list(w, "volumes").stream()
              .filter(v -> v.startsWith(volume + ":"))
              .map(v -> v.split(":")[1])
              .findFirst()
              .orElse(null);
      assertNotNull(target, w + " must mount the plugin volume " + volume);
      List<String> pluginPath = Arrays.asList(env(w).get("CONNECT_PLUGIN_PATH").split(","));
      assertTrue(
          pluginPath.contains(target),
          w + ": CONNECT_PLUGIN_PATH " + pluginPath + " lacks " + target);
      assertFalse(
          Objects.toString(env(w).get("CLASSPATH"), "").contains(target),
          "plugin.path, not the classpath");
    }
  }
}
