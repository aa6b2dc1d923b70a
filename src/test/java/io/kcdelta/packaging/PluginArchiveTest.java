package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The plugin archive: the manifest source always; the built zip (Confluent Hub layout) when
 * `./mvnw package` has made one (tests run before the package phase, so a clean build skips that part;
 * bin/quickstart checks the fresh zip too).
 */
class PluginArchiveTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String pomVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher m = Pattern.compile("<artifactId>kafka-connect-delta</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertTrue(m.find(), "project version in pom.xml");
    return m.group(1);
  }

  private static void checkManifest(JsonNode m, String expectedVersion) {
    assertEquals("kafka-connect-delta", m.path("name").asText());
    assertEquals(expectedVersion, m.path("version").asText());
    assertEquals("kcdelta", m.path("owner").path("username").asText());
    assertEquals("sink", m.path("component_types").path(0).asText());
    assertEquals("exactly_once", m.path("features").path("delivery_guarantee").path(0).asText());
    assertTrue(m.path("license").path(0).path("name").asText().contains("Apache"), "Apache-2.0 license");
    assertTrue(m.path("tags").size() > 0, "tags");
    assertTrue(m.path("requirements").size() > 0, "requirements");
    assertFalse(m.path("title").asText().isEmpty(), "title");
    assertFalse(m.path("description").asText().isEmpty(), "description");
  }

  @Test
  void manifestSourceIsCompleteAndFilteredFromThePom() throws IOException {
    checkManifest(JSON.readTree(ROOT.resolve("manifest.json").toFile()), "${project.version}");
    String descriptor = Files.readString(ROOT.resolve("src/assembly/confluent-hub.xml"));
    assertTrue(descriptor.contains("<source>manifest.json</source>"));
    assertTrue(descriptor.contains("<filtered>true</filtered>"), "manifest.json is filtered (version from the pom)");
    assertTrue(Files.readString(ROOT.resolve("LICENSE")).contains("Apache License"));
  }

  @Test
  void builtZipHasTheConfluentHubLayout() throws IOException {
    String version = pomVersion();
    String base = "kcdelta-kafka-connect-delta-" + version;
    Path zip = ROOT.resolve("target/components/packages/" + base + ".zip");
    Assumptions.assumeTrue(Files.exists(zip), "no " + zip + " yet (run ./mvnw package)");
    try (ZipFile z = new ZipFile(zip.toFile())) {
      List<String> names = z.stream().map(ZipEntry::getName).toList();
      for (String n : names) {
        assertTrue(n.startsWith(base + "/"), "everything under one top-level component dir " + base + "/: " + n);
      }
      ZipEntry manifest = z.getEntry(base + "/manifest.json");
      assertNotNull(manifest, "manifest.json at the component root");
      checkManifest(JSON.readTree(z.getInputStream(manifest)), version);

      Set<String> lib = names.stream().filter(n -> n.startsWith(base + "/lib/") && n.endsWith(".jar"))
          .map(n -> n.substring((base + "/lib/").length())).collect(Collectors.toCollection(TreeSet::new));
      assertTrue(lib.contains("kafka-connect-delta-" + version + ".jar"), "the connector jar is in lib/: " + lib);
      for (String jar : lib) {
        assertFalse(jar.matches("(kafka-clients|connect-api|connect-runtime|connect-json|kafka_2\\.13|slf4j-|log4j-|"
            + "reload4j|logback-).*"), "lib/ must not bundle what the worker provides: " + jar);
        assertFalse(jar.matches("(junit|s3proxy|snakeyaml|opentest4j).*"), "test dependency in lib/: " + jar);
      }
      for (String doc : List.of("README.md", "LICENSE", "THIRD-PARTY.txt")) {
        assertNotNull(z.getEntry(base + "/doc/" + doc), "doc/" + doc);
      }
      for (String etc : List.of("quickstart-s3.json", "s3-dynamodb-aws.json", "local-filesystem.json",
          "docker-s3-avro.json", "delta-sink-standalone.properties", "connect-distributed.properties",
          "connect-standalone.properties")) {
        assertNotNull(z.getEntry(base + "/etc/" + etc), "etc/" + etc);
      }

      // every bundled third-party jar is named in doc/THIRD-PARTY.txt (bin/third-party-notices rewrites it)
      String notices = new String(z.getInputStream(z.getEntry(base + "/doc/THIRD-PARTY.txt")).readAllBytes(),
          StandardCharsets.UTF_8);
      List<String> missing = new ArrayList<>();
      for (String jar : lib) {
        if (jar.startsWith("kafka-connect-delta-")) {
          continue;
        }
        String stem = jar.substring(0, jar.length() - ".jar".length()); // artifactId-version
        boolean listed = notices.lines().map(l -> l.split("\\s+")[0].split(":"))
            .anyMatch(c -> c.length == 3 && (c[1] + "-" + c[2]).equals(stem));
        if (!listed) {
          missing.add(jar);
        }
      }
      assertTrue(missing.isEmpty(), "THIRD-PARTY.txt does not list " + missing + ": run bin/third-party-notices");
    }
  }
}
