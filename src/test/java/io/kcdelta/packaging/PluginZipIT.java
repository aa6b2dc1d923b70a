package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The built plugin zip has the Confluent Hub layout. Runs in the verify phase (a Surefire execution
 * of its own in pom.xml), after the package phase made the zip.
 */
class PluginZipIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void builtZipHasTheConfluentHubLayout() throws IOException {
    String version = PluginArchiveTest.pomVersion();
    String base = "kcdelta-kafka-connect-delta-" + version;
    Path zip = PluginArchiveTest.ROOT.resolve("target/components/packages/" + base + ".zip");
    assertTrue(Files.exists(zip), "no " + zip + ": the package phase builds it");
    try (ZipFile z = new ZipFile(zip.toFile())) {
      List<String> names = z.stream().map(ZipEntry::getName).toList();
      for (String n : names) {
        assertTrue(
            n.startsWith(base + "/"),
            "everything under one top-level component dir " + base + "/: " + n);
      }
      ZipEntry manifest = z.getEntry(base + "/manifest.json");
      assertNotNull(manifest, "manifest.json at the component root");
      PluginArchiveTest.checkManifest(JSON.readTree(z.getInputStream(manifest)), version);

      Set<String> lib =
          names.stream()
              .filter(n -> n.startsWith(base + "/lib/") && n.endsWith(".jar"))
              .map(n -> n.substring((base + "/lib/").length()))
              .collect(Collectors.toCollection(TreeSet::new));
      assertTrue(
          lib.contains("kafka-connect-delta-" + version + ".jar"),
          "the connector jar is in lib/: " + lib);
      for (String jar : lib) {
        assertFalse(
            jar.matches(
                "(kafka-clients|connect-api|connect-runtime|connect-json|kafka_2\\.13|slf4j-|log4j-|"
                    + "reload4j|logback-).*"),
            "lib/ must not bundle what the worker provides: " + jar);
        assertFalse(
            jar.matches("(junit|s3proxy|snakeyaml|opentest4j).*"),
            "test dependency in lib/: " + jar);
      }
      assertNotNull(z.getEntry(base + "/bin/delta-sink-status"), "bin/delta-sink-status");
      for (String doc : List.of("README.md", "LICENSE", "THIRD-PARTY.txt")) {
        assertNotNull(z.getEntry(base + "/doc/" + doc), "doc/" + doc);
      }
      for (String etc :
          List.of(
              "quickstart-s3.json",
              "s3-dynamodb-aws.json",
              "s3-conditional-aws.json",
              "s3-dynamodb-assume-role.json",
              "local-filesystem.json",
              "docker-s3-avro.json",
              "delta-sink-standalone.properties",
              "connect-distributed.properties",
              "connect-standalone.properties",
              "monitoring/jmx-exporter-kcdelta.yml",
              "monitoring/grafana-dashboard-kcdelta.json")) {
        assertNotNull(z.getEntry(base + "/etc/" + etc), "etc/" + etc);
      }

      // every bundled third-party jar is named in doc/THIRD-PARTY.txt (bin/third-party-notices
      // rewrites it)
      String notices =
          new String(
              z.getInputStream(z.getEntry(base + "/doc/THIRD-PARTY.txt")).readAllBytes(),
              StandardCharsets.UTF_8);
      List<String> missing = new ArrayList<>();
      for (String jar : lib) {
        if (jar.startsWith("kafka-connect-delta-")) {
          continue;
        }
        String stem = jar.substring(0, jar.length() - ".jar".length()); // artifactId-version
        boolean listed =
            notices
                .lines()
                .map(l -> l.split("\\s+")[0].split(":"))
                .anyMatch(c -> c.length == 3 && (c[1] + "-" + c[2]).equals(stem));
        if (!listed) {
          missing.add(jar);
        }
      }
      assertTrue(
          missing.isEmpty(),
          "THIRD-PARTY.txt does not list " + missing + ": run bin/third-party-notices");
    }
  }
}
