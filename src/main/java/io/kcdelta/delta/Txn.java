package io.kcdelta.delta;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code txn} action: the version an application committed last. The connector writes one per
 * Kafka partition of a commit, {@code version} being the partition's last offset in it.
 *
 * @param lastUpdated epoch milliseconds, or null
 */
public record Txn(String appId, long version, Long lastUpdated) {

  static Txn fromJson(Map<String, Object> json) {
    return new Txn(
        (String) json.get("appId"),
        ActionJson.longValue(json, "version", -1),
        ActionJson.longOrNull(json.get("lastUpdated")));
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("appId", appId);
    out.put("version", version);
    if (lastUpdated != null) {
      out.put("lastUpdated", lastUpdated);
    }
    return out;
  }
}
