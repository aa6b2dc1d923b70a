package io.kcdelta.delta;

import java.util.LinkedHashMap;
import java.util.Map;

/** A {@code domainMetadata} action: named configuration a writer keeps in the log. */
public record DomainMetadata(String domain, String configuration, boolean removed) {

  static DomainMetadata fromJson(Map<String, Object> json) {
    return new DomainMetadata(
        (String) json.get("domain"),
        (String) json.get("configuration"),
        Boolean.TRUE.equals(json.get("removed")));
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("domain", domain);
    out.put("configuration", configuration);
    out.put("removed", removed);
    return out;
  }
}
