package io.kcdelta.delta;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The table's {@code protocol} action: the reader and writer versions, and with reader version 3 /
 * writer version 7 the table features a client must implement.
 *
 * @param readerFeatures null unless the reader version is 3
 * @param writerFeatures null unless the writer version is 7
 */
public record Protocol(
    int minReaderVersion,
    int minWriterVersion,
    Set<String> readerFeatures,
    Set<String> writerFeatures) {

  /** What a table the connector creates without table properties has: the widest readership. */
  public static final Protocol LEGACY_DEFAULT = new Protocol(1, 2, null, null);

  public Protocol {
    readerFeatures =
        readerFeatures == null ? null : Collections.unmodifiableSet(new TreeSet<>(readerFeatures));
    writerFeatures =
        writerFeatures == null ? null : Collections.unmodifiableSet(new TreeSet<>(writerFeatures));
  }

  /**
   * Every feature a writer must respect on this table: the listed ones with table features, else
   * those the legacy versions imply (the protocol's "Writer Version Requirements").
   */
  public Set<String> writerFeatureSet() {
    Set<String> out = new TreeSet<>();
    if (minWriterVersion >= 7) {
      if (writerFeatures != null) {
        out.addAll(writerFeatures);
      }
    } else {
      if (minWriterVersion >= 2) {
        out.addAll(List.of(TableFeature.APPEND_ONLY.id(), TableFeature.INVARIANTS.id()));
      }
      if (minWriterVersion >= 3) {
        out.add(TableFeature.CHECK_CONSTRAINTS.id());
      }
      if (minWriterVersion >= 4) {
        out.addAll(
            List.of(TableFeature.CHANGE_DATA_FEED.id(), TableFeature.GENERATED_COLUMNS.id()));
      }
      if (minWriterVersion >= 5) {
        out.add(TableFeature.COLUMN_MAPPING.id());
      }
      if (minWriterVersion >= 6) {
        out.add(TableFeature.IDENTITY_COLUMNS.id());
      }
    }
    if (minReaderVersion >= 3 && readerFeatures != null) {
      // A writer reads the table first: it must implement the reader features too.
      out.addAll(readerFeatures);
    }
    return out;
  }

  /** Whether the table supports the feature (explicitly, or implied by its legacy versions). */
  public boolean supports(TableFeature feature) {
    return writerFeatureSet().contains(feature.id());
  }

  static Protocol fromJson(Map<String, Object> json) {
    return new Protocol(
        ActionJson.integer(json, "minReaderVersion", 1),
        ActionJson.integer(json, "minWriterVersion", 2),
        ActionJson.stringSet(json.get("readerFeatures")),
        ActionJson.stringSet(json.get("writerFeatures")));
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("minReaderVersion", minReaderVersion);
    out.put("minWriterVersion", minWriterVersion);
    if (readerFeatures != null) {
      out.put("readerFeatures", List.copyOf(readerFeatures));
    }
    if (writerFeatures != null) {
      out.put("writerFeatures", List.copyOf(writerFeatures));
    }
    return out;
  }
}
