package io.kcdelta.delta;

import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.JsonText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One line of a Delta commit file: a JSON object with one key, the action's kind ({@code add},
 * {@code txn}, ...), whose value is the action. Read with our own parser, as the schema and stats
 * are: the log is plain JSON and the connector bundles no JSON library of its own.
 */
final class ActionJson {
  private ActionJson() {}

  static String line(String kind, Map<String, Object> action) {
    Map<String, Object> out = new LinkedHashMap<>(1);
    out.put(kind, action);
    return JsonText.write(out);
  }

  /**
   * The action's kind: the line's first key, found without parsing the rest (a commit of many files
   * is mostly {@code add} lines that a reader of txn versions can skip). Null: not an object with a
   * key.
   */
  static String kind(String line) {
    int i = 0;
    int n = line.length();
    while (i < n && Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    if (i >= n || line.charAt(i) != '{') {
      return null;
    }
    i++;
    while (i < n && Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    if (i >= n || line.charAt(i) != '"') {
      return null;
    }
    int end = line.indexOf('"', i + 1);
    if (end < 0) {
      return null;
    }
    String key = line.substring(i + 1, end);
    // Kinds are plain identifiers; an escape would make this not one of ours anyway.
    return key.indexOf('\\') >= 0 ? null : key;
  }

  /** The action of the line (its kind's value), or null when the line is blank. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> body(String line, String kind) {
    if (line.isBlank()) {
      return null;
    }
    Object parsed = JsonParser.parse(line);
    if (!(parsed instanceof Map<?, ?> m) || !(m.get(kind) instanceof Map<?, ?> body)) {
      throw new IllegalArgumentException("Not a Delta '" + kind + "' action: " + abbreviated(line));
    }
    return (Map<String, Object>) body;
  }

  static String abbreviated(String line) {
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }

  static int integer(Map<String, Object> json, String key, int orElse) {
    return json.get(key) instanceof Number n ? n.intValue() : orElse;
  }

  static long longValue(Map<String, Object> json, String key, long orElse) {
    return json.get(key) instanceof Number n ? n.longValue() : orElse;
  }

  static Long longOrNull(Object value) {
    return value instanceof Number n ? n.longValue() : null;
  }

  static Set<String> stringSet(Object value) {
    if (!(value instanceof List<?> list)) {
      return null;
    }
    Set<String> out = new LinkedHashSet<>();
    list.forEach(v -> out.add(String.valueOf(v)));
    return out;
  }

  static List<String> stringList(Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      list.forEach(v -> out.add(String.valueOf(v)));
    }
    return out;
  }

  /** String values; a null value stays null (partition values: the null partition). */
  static Map<String, String> stringMap(Object value) {
    Map<String, String> out = new LinkedHashMap<>();
    if (value instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
    }
    return out;
  }
}
