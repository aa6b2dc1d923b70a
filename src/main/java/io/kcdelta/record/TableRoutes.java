package io.kcdelta.record;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.TablePathTemplate;
import io.kcdelta.schema.JsonParser;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Which table a record goes to: its topic's table, or, where the path names {@code
 * ${field:<name>}}, the table its field values name.
 */
public final class TableRoutes {
  /**
   * A value becomes one directory name: no separators, no {@code ..}, no leading dot or underscore
   * (names Delta and Hadoop take as hidden), nothing that URIs escape differently.
   */
  private static final Pattern PATH_SAFE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private final DeltaSinkConfig config;
  private final RecordOrigin origin;
  private final Map<String, TablePathTemplate> templates = new HashMap<>();

  public TableRoutes(DeltaSinkConfig config, RecordOrigin origin) {
    this.config = config;
    this.origin = origin;
  }

  /** Whether the topic's records choose their table by field values. */
  public boolean byField(String topic) {
    return template(topic).byField();
  }

  /**
   * The path of the record's table.
   *
   * @throws DataException the record has no path-safe value of a field its topic's path names
   */
  public String pathOf(SinkRecord record) {
    TablePathTemplate template = template(record.topic());
    if (!template.byField()) {
      return config.tablePath(record.topic());
    }
    Map<String, String> values = new HashMap<>();
    for (String field : template.fields()) {
      values.put(field, valueOf(record, field, template));
    }
    return template.resolve(record.topic(), values::get);
  }

  private TablePathTemplate template(String topic) {
    return templates.computeIfAbsent(topic, config::tablePathTemplate);
  }

  private String valueOf(SinkRecord record, String field, TablePathTemplate template) {
    Object value = fieldValue(record, field);
    if (!(value instanceof String s) || !PATH_SAFE.matcher(s).matches()) {
      throw new DataException(
          "Record "
              + origin.describe(record)
              + " has no table: "
              + DeltaSinkConfig.TABLE_PATH
              + " '"
              + template
              + "' takes the table from field '"
              + field
              + "', whose value "
              + (value == null
                  ? "is missing or null"
                  : value instanceof String
                      ? "'" + abbreviate((String) value) + "' is not path-safe"
                      : "is a " + value.getClass().getSimpleName() + ", not a string")
              + ". Values must match [A-Za-z0-9][A-Za-z0-9._-]* (at most 128 characters).");
    }
    return s;
  }

  private static Object fieldValue(SinkRecord record, String name) {
    Object value = record.value();
    if (value instanceof Struct struct) {
      Field f = struct.schema().field(name);
      return f == null ? null : struct.get(f);
    }
    if (value instanceof Map<?, ?> map) {
      return map.get(name);
    }
    if (value instanceof String json
        && (record.valueSchema() == null || record.valueSchema().type() == Schema.Type.STRING)) {
      try {
        return JsonParser.parse(json) instanceof Map<?, ?> map ? map.get(name) : null;
      } catch (DataException e) {
        return null;
      }
    }
    return null;
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
