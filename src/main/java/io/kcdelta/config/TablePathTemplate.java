package io.kcdelta.config;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table path as configured: literal text with {@code ${topic}} and {@code ${field:<name>}}
 * placeholders. A field placeholder routes each record by the value of a top-level field of its
 * value, so one topic fills many tables; it may stand only after the bucket (or, for file://, after
 * the root), because the scheme and the bucket decide the S3 settings and the log store of every
 * table of a connector.
 */
public final class TablePathTemplate {
  public static final String TOPIC = "${topic}";
  private static final Pattern FIELD = Pattern.compile("\\$\\{field:([^}]*)}");
  private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final String template;
  private final List<String> fields;

  private TablePathTemplate(String template, List<String> fields) {
    this.template = template;
    this.fields = List.copyOf(fields);
  }

  /**
   * @throws IllegalArgumentException a field placeholder without a valid name, or in the scheme or
   *     bucket
   */
  public static TablePathTemplate parse(String template) {
    String t = template.trim();
    List<String> fields = new ArrayList<>();
    Matcher m = FIELD.matcher(t);
    while (m.find()) {
      String name = m.group(1).trim();
      if (!FIELD_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "'"
                + m.group()
                + "' does not name a field: write ${field:<name>} with the name of a top-level "
                + "field of the record value (letters, digits, _).");
      }
      fields.add(name);
    }
    if (!fields.isEmpty()) {
      int schemeEnd = t.indexOf("://");
      int rootEnd = schemeEnd < 0 ? -1 : t.indexOf('/', schemeEnd + 3);
      if (rootEnd < 0 || t.indexOf("${field:") < rootEnd) {
        throw new IllegalArgumentException(
            "${field:...} may only follow the bucket (s3a://bucket/...) or the root "
                + "(file:///...): the tables of one connector share a scheme and bucket.");
      }
    }
    return new TablePathTemplate(t, fields);
  }

  /** Whether records choose their table by the values of fields. */
  public boolean byField() {
    return !fields.isEmpty();
  }

  /** The fields the path names, in order (repeats included). */
  public List<String> fields() {
    return fields;
  }

  /** The template with sample values in its placeholders: for checking it as a URI. */
  public String sample() {
    return FIELD.matcher(template.replace(TOPIC, "topic")).replaceAll("field");
  }

  /**
   * The path of a record's table.
   *
   * @param valueOf the record's value of each field named, already checked to be path-safe
   */
  public String resolve(String topic, UnaryOperator<String> valueOf) {
    String withTopic = template.replace(TOPIC, topic);
    if (fields.isEmpty()) {
      return withTopic;
    }
    Matcher m = FIELD.matcher(withTopic);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(valueOf.apply(m.group(1).trim())));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Override
  public String toString() {
    return template;
  }
}
