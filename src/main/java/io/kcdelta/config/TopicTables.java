package io.kcdelta.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigException;

/**
 * Tables named per topic: {@code delta.table.path.<topic>} settings route a topic's records to a
 * table of its own, for topics whose names do not make paths (or whose tables live elsewhere); the
 * other topics go to {@code delta.table.path}. Every table of a connector has the scheme of {@code
 * delta.table.path}: the S3A settings and the log store follow from it.
 */
final class TopicTables {
  static final String PREFIX = DeltaSinkConfig.TABLE_PATH + ".";

  private TopicTables() {}

  /** Topic to table path, as configured (trimmed). */
  static Map<String, String> from(Map<String, ?> props) {
    Map<String, String> out = new LinkedHashMap<>();
    props.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX) && key.length() > PREFIX.length() && value != null) {
            out.put(key.substring(PREFIX.length()), value.toString().trim());
          }
        });
    return out;
  }

  /** Setting key to problem, for each table path that cannot be used. */
  static Map<String, String> problems(Map<String, String> props) {
    Map<String, String> problems = new LinkedHashMap<>();
    String defaultScheme =
        props.get(DeltaSinkConfig.TABLE_PATH) == null
            ? null
            : DeltaSinkConfig.schemeOf(props.get(DeltaSinkConfig.TABLE_PATH));
    from(props)
        .forEach(
            (topic, path) -> {
              String key = PREFIX + topic;
              try {
                new DeltaSinkConfig.TablePathValidator().ensureValid(key, path);
              } catch (ConfigException e) {
                problems.put(key, e.getMessage());
                return;
              }
              String scheme = DeltaSinkConfig.schemeOf(path);
              if (defaultScheme != null && !Objects.equals(scheme, defaultScheme)) {
                problems.put(
                    key,
                    "The table of topic '"
                        + topic
                        + "' is a "
                        + scheme
                        + ":// path but "
                        + DeltaSinkConfig.TABLE_PATH
                        + " is a "
                        + defaultScheme
                        + ":// one: the tables of one connector share a scheme (its S3 settings and log "
                        + "store follow from it). Use a connector per scheme.");
              }
            });
    return problems;
  }
}
