package io.kcdelta.delta;

import io.kcdelta.schema.ArrayType;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.MapType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Column mapping (protocol: "Column Mapping"): in {@code name} and {@code id} mode every field has
 * a physical name and an id in its metadata; data files, stats and partition values use the
 * physical names, Parquet field ids the ids. A field added to such a table gets both here, and the
 * table's {@code delta.columnMapping.maxColumnId} follows.
 */
public final class ColumnMapping {
  public static final String MODE = "delta.columnMapping.mode";
  public static final String ID = "delta.columnMapping.id";
  public static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";
  static final String MAX_COLUMN_ID = "delta.columnMapping.maxColumnId";

  private ColumnMapping() {}

  /** {@code none}, {@code name} or {@code id}. */
  public static String mode(Metadata metadata) {
    String mode = metadata == null ? null : metadata.property(MODE);
    return mode == null ? "none" : mode.toLowerCase(java.util.Locale.ROOT);
  }

  public static boolean enabled(Metadata metadata) {
    return !"none".equals(mode(metadata));
  }

  /**
   * The metadata with an id and a physical name on every field that has none, and the max column id
   * raised to match; unchanged without column mapping.
   */
  static Metadata assign(Metadata metadata) {
    if (!enabled(metadata)) {
      return metadata;
    }
    long[] maxId = {maxId(metadata.schema())};
    String configured = metadata.property(MAX_COLUMN_ID);
    if (configured != null) {
      maxId[0] = Math.max(maxId[0], Long.parseLong(configured.trim()));
    }
    long before = maxId[0];
    StructType schema = (StructType) assign(metadata.schema(), maxId);
    if (maxId[0] == before && configured != null) {
      return metadata;
    }
    Map<String, String> configuration = new LinkedHashMap<>(metadata.configuration());
    configuration.put(MAX_COLUMN_ID, Long.toString(maxId[0]));
    return metadata.withSchema(schema).withConfiguration(configuration);
  }

  private static DeltaType assign(DeltaType type, long[] maxId) {
    if (type instanceof StructType struct) {
      List<StructField> fields = new ArrayList<>(struct.length());
      for (StructField f : struct.fields()) {
        Map<String, Object> meta = f.metadata();
        if (!meta.containsKey(ID) || !meta.containsKey(PHYSICAL_NAME)) {
          meta = new LinkedHashMap<>(meta);
          if (!meta.containsKey(ID)) {
            meta.put(ID, ++maxId[0]);
          }
          meta.putIfAbsent(PHYSICAL_NAME, "col-" + UUID.randomUUID());
        }
        fields.add(new StructField(f.name(), assign(f.type(), maxId), f.nullable(), meta));
      }
      return new StructType(fields);
    }
    if (type instanceof ArrayType a) {
      return new ArrayType(assign(a.elementType(), maxId), a.containsNull());
    }
    if (type instanceof MapType m) {
      return new MapType(
          assign(m.keyType(), maxId), assign(m.valueType(), maxId), m.valueContainsNull());
    }
    return type;
  }

  private static long maxId(DeltaType type) {
    long max = 0;
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        if (f.metadata().get(ID) instanceof Number n) {
          max = Math.max(max, n.longValue());
        }
        max = Math.max(max, maxId(f.type()));
      }
    } else if (type instanceof ArrayType a) {
      max = maxId(a.elementType());
    } else if (type instanceof MapType m) {
      max = Math.max(maxId(m.keyType()), maxId(m.valueType()));
    }
    return max;
  }

  /** The field's name in data files, stats and partition values. */
  public static String physicalName(StructField field, Metadata metadata) {
    if (!enabled(metadata)) {
      return field.name();
    }
    Object physical = field.metadata().get(PHYSICAL_NAME);
    if (physical == null) {
      throw new IllegalStateException(
          "Column '" + field.name() + "' has no physical name in a column-mapped table");
    }
    return physical.toString();
  }

  /**
   * The schema as data files and stats name its fields: physical names in a column-mapped table,
   * else the schema itself.
   */
  public static StructType physicalSchema(StructType schema, Metadata metadata) {
    return enabled(metadata) ? (StructType) physical(schema, metadata) : schema;
  }

  private static DeltaType physical(DeltaType type, Metadata metadata) {
    if (type instanceof StructType struct) {
      List<StructField> fields = new ArrayList<>(struct.length());
      for (StructField f : struct.fields()) {
        fields.add(
            new StructField(
                physicalName(f, metadata),
                physical(f.type(), metadata),
                f.nullable(),
                f.metadata()));
      }
      return new StructType(fields);
    }
    if (type instanceof ArrayType a) {
      return new ArrayType(physical(a.elementType(), metadata), a.containsNull());
    }
    if (type instanceof MapType m) {
      return new MapType(
          physical(m.keyType(), metadata),
          physical(m.valueType(), metadata),
          m.valueContainsNull());
    }
    return type;
  }
}
