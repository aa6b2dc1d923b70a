package io.kcdelta.delta;

import io.kcdelta.schema.GenerationExpression;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The protocol and metadata of a table the connector creates, as Delta derives them from its table
 * properties: each property that turns a feature on adds that feature; without any, the table stays
 * at protocol (1,2), which every Delta reader reads. Also what a metadata change must bring along
 * (ids and physical names of added columns in a column-mapped table).
 */
public final class NewTables {
  /** Table properties that turn a feature on when {@code true} (or the given value). */
  private static final Map<String, TableFeature> ENABLING =
      Map.of(
          "delta.enableDeletionVectors", TableFeature.DELETION_VECTORS,
          "delta.enableInCommitTimestamps", TableFeature.IN_COMMIT_TIMESTAMP,
          "delta.enableRowTracking", TableFeature.ROW_TRACKING,
          "delta.enableTypeWidening", TableFeature.TYPE_WIDENING,
          "delta.enableChangeDataFeed", TableFeature.CHANGE_DATA_FEED,
          "delta.appendOnly", TableFeature.APPEND_ONLY);

  static final String FEATURE_PREFIX = "delta.feature.";

  private NewTables() {}

  record Created(Protocol protocol, Metadata metadata) {}

  /** The features the table properties ask for. */
  public static Set<TableFeature> features(Map<String, String> properties) {
    Set<TableFeature> features = new TreeSet<>();
    properties.forEach(
        (key, value) -> {
          String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
          TableFeature f = ENABLING.get(key);
          if (f != null && v.equals("true")) {
            features.add(f);
          } else if (key.equals(ColumnMapping.MODE) && (v.equals("name") || v.equals("id"))) {
            features.add(TableFeature.COLUMN_MAPPING);
          } else if (key.equals("delta.checkpointPolicy") && v.equals("v2")) {
            features.add(TableFeature.V2_CHECKPOINT);
          } else if (key.startsWith(FEATURE_PREFIX) && v.equals("supported")) {
            TableFeature named = TableFeature.of(key.substring(FEATURE_PREFIX.length()));
            if (named != null) {
              features.add(named);
            }
          }
        });
    if (features.contains(TableFeature.ROW_TRACKING)
        || features.contains(TableFeature.CLUSTERING)) {
      features.add(TableFeature.DOMAIN_METADATA);
    }
    return features;
  }

  static Created create(Metadata planned) {
    Set<TableFeature> features = features(planned.configuration());
    Map<String, String> configuration = new LinkedHashMap<>();
    planned
        .configuration()
        .forEach(
            (k, v) -> {
              // delta.feature.* asks for support in the protocol; it is not a table property.
              if (!k.startsWith(FEATURE_PREFIX)) {
                configuration.put(k, v);
              }
            });
    if (features.contains(TableFeature.ROW_TRACKING) && planned.flag("delta.enableRowTracking")) {
      configuration.putIfAbsent(
          "delta.rowTracking.materializedRowIdColumnName", "_row-id-col-" + UUID.randomUUID());
      configuration.putIfAbsent(
          "delta.rowTracking.materializedRowCommitVersionColumnName",
          "_row-commit-version-col-" + UUID.randomUUID());
    }
    Metadata metadata = ColumnMapping.assign(planned.withConfiguration(configuration));
    if (generates(metadata.schema())) {
      features.add(TableFeature.GENERATED_COLUMNS);
    }
    Protocol protocol = protocol(features);
    if (protocol.minWriterVersion() >= 7 && hasNotNull(metadata.schema())) {
      // A NOT NULL column is an invariant in Delta's terms: with table features the protocol must
      // list it, or Spark refuses the table ("enabled in metadata but not listed in protocol").
      features.add(TableFeature.INVARIANTS);
      protocol = protocol(features);
    }
    return new Created(protocol, metadata);
  }

  private static boolean hasNotNull(io.kcdelta.schema.DeltaType type) {
    if (type instanceof io.kcdelta.schema.StructType struct) {
      for (io.kcdelta.schema.StructField f : struct.fields()) {
        if (!f.nullable() || hasNotNull(f.type())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether a top-level column is generated. */
  private static boolean generates(io.kcdelta.schema.StructType schema) {
    return schema.fields().stream()
        .anyMatch(f -> f.metadata().containsKey(GenerationExpression.METADATA_KEY));
  }

  static Protocol protocol(Set<TableFeature> features) {
    Set<TableFeature> beyondLegacy = new TreeSet<>(features);
    beyondLegacy.remove(TableFeature.APPEND_ONLY);
    if (beyondLegacy.isEmpty()) {
      return Protocol.LEGACY_DEFAULT;
    }
    if (beyondLegacy.contains(TableFeature.GENERATED_COLUMNS)
        && Set.of(TableFeature.GENERATED_COLUMNS, TableFeature.CHANGE_DATA_FEED)
            .containsAll(beyondLegacy)) {
      // Writer version 4 implies both, as Spark makes such a table: read by every Delta reader.
      return new Protocol(1, 4, null, null);
    }
    Set<String> writer = new TreeSet<>();
    Set<String> reader = new TreeSet<>();
    for (TableFeature f : features) {
      writer.add(f.id());
      if (f.readerWriter()) {
        reader.add(f.id());
      }
    }
    return reader.isEmpty() ? new Protocol(1, 7, null, writer) : new Protocol(3, 7, reader, writer);
  }

  /** A metadata change to an existing table, with what its features ask of it. */
  static Metadata evolved(Metadata planned) {
    return ColumnMapping.assign(planned);
  }
}
