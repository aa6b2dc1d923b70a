package io.kcdelta.delta;

import io.kcdelta.schema.JsonParser;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A clustered table's clustering columns (protocol: "Clustered Table"), from its {@code
 * delta.clustering} domain: writers must give every file stats for them.
 */
public final class Clustering {
  static final String DOMAIN = "delta.clustering";

  private Clustering() {}

  /**
   * The top-level columns (by physical name) of the table's clustering columns; empty when the
   * table is not clustered.
   */
  public static Set<String> topLevelColumns(LogState state) {
    Set<String> out = new LinkedHashSet<>();
    String configuration = state.domain(DOMAIN);
    if (configuration == null) {
      return out;
    }
    if (JsonParser.parse(configuration) instanceof Map<?, ?> m
        && m.get("clusteringColumns") instanceof List<?> columns) {
      for (Object column : columns) {
        // Delta writes each as a path of physical names; the protocol's example as a name.
        if (column instanceof List<?> path && !path.isEmpty()) {
          out.add(String.valueOf(path.get(0)));
        } else if (column instanceof String name) {
          out.add(name);
        }
      }
    }
    return out;
  }
}
