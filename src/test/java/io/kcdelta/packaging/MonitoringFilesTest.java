package io.kcdelta.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.kcdelta.metrics.MetricCatalog;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.apache.kafka.common.utils.Sanitizer;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The monitoring files in {@code config/monitoring/} against what the task publishes ({@link
 * MetricCatalog}): every MBean attribute gets a Prometheus name from the exporter rules, read the
 * way the Prometheus JMX exporter reads them, and every metric the Grafana dashboard queries is one
 * of those names.
 */
class MonitoringFilesTest {
  private static final Path RULES = Path.of("config/monitoring/jmx-exporter-kcdelta.yml");
  private static final Path DASHBOARD = Path.of("config/monitoring/grafana-dashboard-kcdelta.json");
  private static final String TABLE = "s3a://bucket/warehouse/orders";

  /** A rule as the exporter applies it: anchored around the pattern, first match wins. */
  record Rule(Pattern pattern, String name, Map<String, String> labels) {}

  /** A scraped sample: its Prometheus name and labels. */
  record Sample(String name, Map<String, String> labels) {}

  @Test
  void everyPublishedMetricGetsAPrometheusNameWithItsTags() throws Exception {
    List<Rule> rules = rules();
    for (MetricCatalog.Entry e : MetricCatalog.all()) {
      for (Map<String, String> tags : tagCombinations(e.tagKeys())) {
        Sample s = scrape(rules, pluginBean(tags), e.name());
        assertTrue(s != null, "no exporter rule matches " + e.name() + " " + tags);
        assertTrue(s.name().startsWith("kcdelta_"), s.name());
        assertEquals("orders-sink", s.labels().get("connector"), s.toString());
        assertEquals("3", s.labels().get("task"), s.toString());
        tags.forEach(
            (k, v) -> assertEquals(v, s.labels().get(k), "label " + k + " of " + s.name()));
      }
    }
    Sample lag =
        scrape(
            rules,
            "kafka.consumer<type=consumer-fetch-manager-metrics, client-id=connector-consumer-"
                + "orders-sink-3, topic=orders, partition=7><>",
            "records-lag");
    assertEquals(
        new Sample(
            "kcdelta_consumer_records_lag",
            Map.of("connector", "orders-sink", "task", "3", "topic", "orders", "partition", "7")),
        lag);
    assertEquals(
        null,
        scrape(rules, "kafka.connect<type=plugins, connector=other, task=0><>", "cache-hits"),
        "another plugin's task metrics are not taken for ours");
  }

  @Test
  void theDashboardIsAValidGrafanaModelAndQueriesOnlyMetricsThatExist() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    JsonSchema schema;
    try (InputStream in = getClass().getResourceAsStream("/grafana-dashboard.schema.json")) {
      schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(in);
    }
    Set<ValidationMessage> problems = schema.validate(dashboard);
    assertEquals(Set.of(), problems, "the dashboard against the Grafana model's schema");

    Set<String> exported = new TreeSet<>();
    List<Rule> rules = rules();
    for (MetricCatalog.Entry e : MetricCatalog.all()) {
      for (Map<String, String> tags : tagCombinations(e.tagKeys())) {
        exported.add(scrape(rules, pluginBean(tags), e.name()).name());
      }
    }
    exported.add("kcdelta_consumer_records_lag");

    Set<String> variables = new TreeSet<>();
    dashboard.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
    List<String> queries = new ArrayList<>();
    dashboard.get("templating").get("list").findValuesAsText("query").forEach(queries::add);
    Set<Integer> ids = new TreeSet<>();
    for (JsonNode panel : dashboard.get("panels")) {
      assertTrue(ids.add(panel.get("id").asInt()), "panel ids are unique");
      panel.get("targets").forEach(t -> queries.add(t.get("expr").asText()));
    }
    Set<String> queried = new TreeSet<>();
    Matcher metric = Pattern.compile("\\bkcdelta_[a-z0-9_]+").matcher(String.join("\n", queries));
    while (metric.find()) {
      queried.add(metric.group());
    }
    assertFalse(queried.isEmpty());
    for (String name : queried) {
      assertTrue(
          exported.contains(name), name + " is queried but not exported; exported: " + exported);
    }
    Matcher variable = Pattern.compile("\\$\\{?([a-zA-Z_]+)").matcher(String.join("\n", queries));
    while (variable.find()) {
      assertTrue(variables.contains(variable.group(1)), "variable $" + variable.group(1));
    }
    for (String family :
        List.of("committed_record_age", "uncommitted_records", "commits_total", "conflicts")) {
      assertTrue(
          queried.stream().anyMatch(q -> q.contains(family)),
          "the dashboard shows " + family + " (freshness, lag, commits, conflicts)");
    }
  }

  /** Tag values for one MBean of each kind; causes and services each get one of their own. */
  private static List<Map<String, String>> tagCombinations(List<String> keys) {
    List<Map<String, String>> out = new ArrayList<>();
    List<String> enumerated =
        keys.stream().filter(k -> !MetricCatalog.tagValues(k).isEmpty()).toList();
    List<String> values =
        enumerated.isEmpty() ? List.of("") : MetricCatalog.tagValues(enumerated.get(0));
    for (String value : values) {
      Map<String, String> tags = new LinkedHashMap<>();
      for (String k : keys) {
        tags.put(
            k,
            switch (k) {
              case "table" -> TABLE;
              case "topic" -> "orders";
              case "partition" -> "7";
              default -> value;
            });
      }
      out.add(tags);
    }
    return out;
  }

  /**
   * The exporter's view of a task MBean, {@code domain<key=value, …><>}: key properties in the
   * order Kafka's JmxReporter created them, values as in the ObjectName (quoted where needed).
   */
  private static String pluginBean(Map<String, String> tags) throws Exception {
    StringBuilder name =
        new StringBuilder("kafka.connect:type=plugins,connector=orders-sink,task=3");
    tags.forEach((k, v) -> name.append(',').append(k).append('=').append(Sanitizer.jmxSanitize(v)));
    ObjectName object = new ObjectName(name.toString());
    return object.getDomain() + "<" + object.getKeyPropertyListString().replace(",", ", ") + "><>";
  }

  private static Sample scrape(List<Rule> rules, String bean, String attribute) {
    String line = bean + attribute + ": 1.0";
    for (Rule rule : rules) {
      Matcher m = rule.pattern().matcher(line);
      if (m.matches()) {
        Map<String, String> labels = new LinkedHashMap<>();
        rule.labels().forEach((k, v) -> labels.put(k, m.replaceFirst(v)));
        return new Sample(safe(m.replaceFirst(rule.name())).toLowerCase(), labels);
      }
    }
    return null;
  }

  /** The exporter's name rule: characters outside [a-zA-Z0-9:_] become one '_'. */
  private static String safe(String name) {
    return name.replaceAll("[^a-zA-Z0-9:_]+", "_");
  }

  @SuppressWarnings("unchecked")
  private static List<Rule> rules() throws Exception {
    Map<String, Object> config;
    try (InputStream in = Files.newInputStream(RULES)) {
      config = new Yaml().load(in);
    }
    assertEquals(Boolean.TRUE, config.get("lowercaseOutputName"));
    List<Rule> rules = new ArrayList<>();
    for (Map<String, Object> r : (List<Map<String, Object>>) config.get("rules")) {
      if (!r.containsKey("pattern") || !r.containsKey("name")) {
        fail("every rule names its metric: " + r);
      }
      rules.add(
          new Rule(
              Pattern.compile("^.*(?:" + r.get("pattern") + ").*$"),
              (String) r.get("name"),
              (Map<String, String>) r.getOrDefault("labels", Map.of())));
    }
    return rules;
  }
}
