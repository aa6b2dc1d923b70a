package io.kcdelta.delta;

import io.kcdelta.schema.ArrayType;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.FileColumns;
import io.kcdelta.schema.MapType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.nio.charset.StandardCharsets;
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
  public static final String ID = FileColumns.ID;
  public static final String PHYSICAL_NAME = FileColumns.PHYSICAL_NAME;
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
    long floor = maxColumnId(metadata);
    StructType schema = withMapping(metadata.schema(), metadata.id(), floor);
    long max = Math.max(floor, maxId(schema));
    if (schema == metadata.schema()
        && Long.toString(max).equals(metadata.property(MAX_COLUMN_ID))) {
      return metadata;
    }
    Map<String, String> configuration = new LinkedHashMap<>(metadata.configuration());
    configuration.put(MAX_COLUMN_ID, Long.toString(max));
    return metadata.withSchema(schema).withConfiguration(configuration);
  }

  /** The table's delta.columnMapping.maxColumnId, at least the highest id its schema holds. */
  public static long maxColumnId(Metadata metadata) {
    String configured = metadata.property(MAX_COLUMN_ID);
    long max = maxId(metadata.schema());
    return configured == null ? max : Math.max(max, Long.parseLong(configured.trim()));
  }

  /**
   * {@code schema} with an id above {@code maxColumnId} and a physical name on every field that has
   * none (the same instance when all have them). The names follow from the seed (the table's id),
   * the field's path and its id: two writers that add the same field to the same table version give
   * it the same name, so their commits agree.
   */
  public static StructType withMapping(StructType schema, String seed, long maxColumnId) {
    long[] maxId = {Math.max(maxColumnId, maxId(schema))};
    return (StructType) assign("", schema, maxId, seed);
  }

  private static DeltaType assign(String path, DeltaType type, long[] maxId, String seed) {
    if (type instanceof StructType struct) {
      List<StructField> fields = new ArrayList<>(struct.length());
      boolean changed = false;
      for (StructField f : struct.fields()) {
        String fieldPath = path.isEmpty() ? f.name() : path + "." + f.name();
        Map<String, Object> meta = f.metadata();
        if (!meta.containsKey(ID) || !meta.containsKey(PHYSICAL_NAME)) {
          meta = new LinkedHashMap<>(meta);
          if (!meta.containsKey(ID)) {
            meta.put(ID, ++maxId[0]);
          }
          meta.putIfAbsent(
              PHYSICAL_NAME,
              "col-"
                  + UUID.nameUUIDFromBytes(
                      (seed + "\n" + fieldPath + "\n" + meta.get(ID))
                          .getBytes(StandardCharsets.UTF_8)));
        }
        DeltaType nested = assign(fieldPath, f.type(), maxId, seed);
        changed |= meta != f.metadata() || nested != f.type();
        fields.add(new StructField(f.name(), nested, f.nullable(), meta));
      }
      return changed ? new StructType(fields) : struct;
    }
    if (type instanceof ArrayType a) {
      DeltaType element = assign(path + ".element", a.elementType(), maxId, seed);
      return element == a.elementType() ? a : new ArrayType(element, a.containsNull());
    }
    if (type instanceof MapType m) {
      DeltaType key = assign(path + ".key", m.keyType(), maxId, seed);
      DeltaType value = assign(path + ".value", m.valueType(), maxId, seed);
      return key == m.keyType() && value == m.valueType()
          ? m
          : new MapType(key, value, m.valueContainsNull());
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

  /**
   * Why files laid out by {@code written} (the schema a batch's files were written with) cannot be
   * committed to a column-mapped table whose schema is {@code table} now, or null when they can: a
   * field both have must keep its physical name and id, and a field the batch adds must not take an
   * id the table gave another column meanwhile.
   */
  public static String conflict(StructType table, StructType written) {
    java.util.Set<Long> tableIds = new java.util.HashSet<>();
    collectIds(table, tableIds);
    return conflict("", table, written, tableIds);
  }

  private static String conflict(
      String path, DeltaType table, DeltaType written, java.util.Set<Long> tableIds) {
    if (table instanceof StructType t && written instanceof StructType w) {
      for (StructField f : w.fields()) {
        String fieldPath = path.isEmpty() ? f.name() : path + "." + f.name();
        StructField existing = t.field(f.name());
        if (existing == null) {
          if (f.metadata().get(ID) instanceof Number n && tableIds.contains(n.longValue())) {
            return "column id " + n + " of the new column '" + fieldPath + "' is taken";
          }
          continue;
        }
        if (!java.util.Objects.equals(
                existing.metadata().get(PHYSICAL_NAME), f.metadata().get(PHYSICAL_NAME))
            || !sameId(existing.metadata().get(ID), f.metadata().get(ID))) {
          return "column '" + fieldPath + "' has another physical name or id in the table now";
        }
        String nested = conflict(fieldPath, existing.type(), f.type(), tableIds);
        if (nested != null) {
          return nested;
        }
      }
    } else if (table instanceof ArrayType t && written instanceof ArrayType w) {
      return conflict(path + ".element", t.elementType(), w.elementType(), tableIds);
    } else if (table instanceof MapType t && written instanceof MapType w) {
      String key = conflict(path + ".key", t.keyType(), w.keyType(), tableIds);
      return key != null ? key : conflict(path + ".value", t.valueType(), w.valueType(), tableIds);
    }
    return null;
  }

  private static boolean sameId(Object a, Object b) {
    return a instanceof Number x && b instanceof Number y ? x.longValue() == y.longValue() : a == b;
  }

  private static void collectIds(DeltaType type, java.util.Set<Long> ids) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        if (f.metadata().get(ID) instanceof Number n) {
          ids.add(n.longValue());
        }
        collectIds(f.type(), ids);
      }
    } else if (type instanceof ArrayType a) {
      collectIds(a.elementType(), ids);
    } else if (type instanceof MapType m) {
      collectIds(m.keyType(), ids);
      collectIds(m.valueType(), ids);
    }
  }
}
