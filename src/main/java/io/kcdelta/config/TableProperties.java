package io.kcdelta.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The table properties of a table the connector creates: {@code delta.table.properties.<name>}
 * settings, one per property. Delta's own ({@code delta.*}) are checked here against the names and
 * values Delta defines, because a misspelt one would be stored and silently ignored by every
 * reader; any other name is the user's own metadata and is stored as given.
 */
public final class TableProperties {
  public static final String PREFIX = "delta.table.properties.";

  private static final Pattern INTERVAL =
      Pattern.compile(
          "(?i)\\s*interval\\s+\\d+\\s+(nanosecond|microsecond|millisecond|second|minute|hour|day|"
              + "week)s?\\s*");
  private static final Predicate<String> BOOLEAN =
      v -> v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false");
  private static final Predicate<String> POSITIVE_INT = v -> v.matches("\\s*[1-9]\\d{0,8}\\s*");

  /** Delta table properties a new table may get, and what their value must look like. */
  private static final Map<String, Rule> KNOWN = new TreeMap<>();

  private record Rule(Predicate<String> valid, String expected) {}

  static {
    for (String flag :
        List.of(
            "delta.appendOnly",
            "delta.enableChangeDataFeed",
            "delta.enableDeletionVectors",
            "delta.enableExpiredLogCleanup",
            "delta.enableInCommitTimestamps",
            "delta.enableRowTracking",
            "delta.enableTypeWidening",
            "delta.checkpoint.writeStatsAsJson",
            "delta.checkpoint.writeStatsAsStruct",
            "delta.randomizeFilePrefixes",
            "delta.autoOptimize.autoCompact",
            "delta.autoOptimize.optimizeWrite")) {
      KNOWN.put(flag, new Rule(BOOLEAN, "true or false"));
    }
    for (String interval :
        List.of(
            "delta.logRetentionDuration",
            "delta.deletedFileRetentionDuration",
            "delta.setTransactionRetentionDuration")) {
      KNOWN.put(interval, new Rule(v -> INTERVAL.matcher(v).matches(), "e.g. 'interval 30 days'"));
    }
    KNOWN.put("delta.checkpointInterval", new Rule(POSITIVE_INT, "a positive integer"));
    KNOWN.put(
        "delta.dataSkippingNumIndexedCols",
        new Rule(v -> v.trim().matches("-1|\\d{1,9}"), "-1 or a non-negative integer"));
    KNOWN.put("delta.dataSkippingStatsColumns", new Rule(v -> !v.isBlank(), "column names"));
    KNOWN.put(
        "delta.columnMapping.mode",
        new Rule(oneOf(Set.of("none", "name", "id")), "none, name or id"));
    KNOWN.put("delta.checkpointPolicy", new Rule(oneOf(Set.of("classic", "v2")), "classic or v2"));
    KNOWN.put(
        "delta.isolationLevel",
        new Rule(
            oneOf(Set.of("serializable", "writeserializable")),
            "Serializable or WriteSerializable"));
    KNOWN.put("delta.targetFileSize", new Rule(v -> !v.isBlank(), "a size, e.g. 128mb"));
  }

  /** Table features a table may be given support for with delta.feature.<name>=supported. */
  private static final Set<String> FEATURES =
      Set.of(
          "appendOnly",
          "changeDataFeed",
          "columnMapping",
          "deletionVectors",
          "domainMetadata",
          "inCommitTimestamp",
          "rowTracking",
          "timestampNtz",
          "typeWidening",
          "v2Checkpoint",
          "vacuumProtocolCheck",
          "checkpointProtection");

  private TableProperties() {}

  private static Predicate<String> oneOf(Set<String> values) {
    return v -> values.contains(v.trim().toLowerCase(Locale.ROOT));
  }

  /** The properties in the settings, prefix removed, values trimmed. */
  public static Map<String, String> from(Map<String, ?> settings) {
    Map<String, String> out = new LinkedHashMap<>();
    settings.forEach(
        (k, v) -> {
          if (k.startsWith(PREFIX) && k.length() > PREFIX.length() && v != null) {
            out.put(k.substring(PREFIX.length()), String.valueOf(v).trim());
          }
        });
    return out;
  }

  /** What is wrong with the properties, one message per setting (key → message). */
  static Map<String, String> problems(Map<String, String> settings) {
    Map<String, String> problems = new LinkedHashMap<>();
    from(settings)
        .forEach(
            (name, value) -> {
              String problem = problem(name, value);
              if (problem != null) {
                problems.put(PREFIX + name, problem);
              }
            });
    return problems;
  }

  private static String problem(String name, String value) {
    if (!name.startsWith("delta.")) {
      return null;
    }
    if (name.startsWith("delta.feature.")) {
      String feature = name.substring("delta.feature.".length());
      if (!FEATURES.contains(feature)) {
        return "The connector cannot write tables with the table feature '"
            + feature
            + "'. Features it can create tables with: "
            + String.join(", ", new TreeSet<>(FEATURES))
            + ".";
      }
      return value.equalsIgnoreCase("supported")
          ? null
          : "A delta.feature.* property takes the value 'supported', not '" + value + "'.";
    }
    Rule rule = KNOWN.get(name);
    if (rule == null) {
      List<String> near = new ArrayList<>();
      for (String known : KNOWN.keySet()) {
        if (known.equalsIgnoreCase(name)) {
          near.add(known);
        }
      }
      return "'"
          + name
          + "' is not a Delta table property this connector sets on a new table"
          + (near.isEmpty() ? "" : " (did you mean " + near.get(0) + "?)")
          + ". Known: "
          + String.join(", ", KNOWN.keySet())
          + ", delta.feature.<name>. Internal properties (column mapping ids, row tracking"
          + " columns, protocol versions) are set by the connector itself.";
    }
    return rule.valid().test(value)
        ? null
        : "'"
            + value
            + "' is not a valid value for "
            + name
            + ": expected "
            + rule.expected()
            + ".";
  }
}
