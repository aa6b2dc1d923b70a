package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The source of the plugin archive's manifest; {@link PluginZipIT} checks the built zip. */
class PluginArchiveTest {
  static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static final ObjectMapper JSON = new ObjectMapper();

  static String pomVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher m =
        Pattern.compile(
                "<artifactId>kafka-connect-delta</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertTrue(m.find(), "project version in pom.xml");
    return m.group(1);
  }

  static void checkManifest(JsonNode m, String expectedVersion) {
    assertEquals("kafka-connect-delta", m.path("name").asText());
    assertEquals(expectedVersion, m.path("version").asText());
    assertEquals("kcdelta", m.path("owner").path("username").asText());
    assertEquals("sink", m.path("component_types").path(0).asText());
    assertEquals("exactly_once", m.path("features").path("delivery_guarantee").path(0).asText());
    assertTrue(
        m.path("license").path(0).path("name").asText().contains("Apache"), "Apache-2.0 license");
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
    assertTrue(
        descriptor.contains("<filtered>true</filtered>"),
        "manifest.json is filtered (version from the pom)");
    assertTrue(Files.readString(ROOT.resolve("LICENSE")).contains("Apache License"));
  }
}
