package io.kcdelta.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Decides whether records of an incoming schema may be appended to a table, and the table's new
 * schema.
 */
public final class SchemaEvolution {

  public enum Mode {
    NONE,
    ADD_COLUMNS
  }

  static final String EVOLUTION_KEY = "delta.schema.evolution";

  private SchemaEvolution() {}

  /**
   * @return {@code table} itself (same instance) when no change is needed, else the evolved schema
   * @throws SchemaMappingException when the incoming schema cannot be appended in this mode
   */
  public static StructType evolve(StructType table, StructType incoming, Mode mode) {
    return evolve(table, incoming, mode, false);
  }

  /**
   * @param widenColumns the table has Delta's type widening enabled: with {@link Mode#ADD_COLUMNS},
   *     a column whose field is wider in the record takes the wider type (its change recorded in
   *     the field's {@code delta.typeChanges})
   */
  public static StructType evolve(
      StructType table, StructType incoming, Mode mode, boolean widenColumns) {
    return struct("", table, incoming, mode, widenColumns && mode == Mode.ADD_COLUMNS);
  }

  /** Field metadata key of the type changes of a widened column (protocol: "Type Widening"). */
  public static final String TYPE_CHANGES = "delta.typeChanges";

  private static StructType struct(
      String path, StructType table, StructType incoming, Mode mode, boolean widen) {
    Map<String, StructField> incomingByName = new HashMap<>();
    for (StructField f : incoming.fields()) {
      incomingByName.put(f.name(), f);
    }
    Map<String, String> tableNamesLower = new HashMap<>();
    for (StructField f : table.fields()) {
      tableNamesLower.put(f.name().toLowerCase(Locale.ROOT), f.name());
    }

    boolean changed = false;
    List<StructField> out = new ArrayList<>(table.length() + 1);
    for (StructField tableField : table.fields()) {
      String column = qualify(path, tableField.name());
      StructField in = incomingByName.get(tableField.name());
      if (in == null) {
        if (!tableField.nullable()) {
          throw new SchemaMappingException(
              "Column '"
                  + column
                  + "' is NOT NULL in the table but the record "
                  + "schema has no such field; add the field to the records (or make the column nullable "
                  + "in the table)");
        }
        out.add(tableField);
        continue;
      }
      if (in.nullable() && !tableField.nullable()) {
        throw new SchemaMappingException(
            "Column '"
                + column
                + "' is NOT NULL "
                + describe(tableField.type())
                + " in the table but optional "
                + describe(in.type())
                + " in the record schema; "
                + "make the field required in the record schema (or the column nullable in the table)");
      }
      DeltaType evolved = type(column, tableField.type(), in.type(), mode, widen);
      if (evolved != tableField.type()) {
        changed = true;
        out.add(isLeaf(evolved) ? widened(tableField, evolved) : tableField.withType(evolved));
      } else {
        out.add(tableField);
      }
    }

    for (StructField in : incoming.fields()) {
      if (containsExact(table, in.name())) {
        continue;
      }
      String column = qualify(path, in.name());
      String clash = tableNamesLower.get(in.name().toLowerCase(Locale.ROOT));
      if (clash != null) {
        throw new SchemaMappingException(
            "Field '"
                + column
                + "' of the record schema differs only in case from "
                + "the column '"
                + qualify(path, clash)
                + "'; Delta column names are case-insensitive: "
                + "rename the field to '"
                + clash
                + "' upstream");
      }
      if (mode == Mode.NONE) {
        throw new SchemaMappingException(
            "Field '"
                + column
                + "' "
                + describe(in.type())
                + " of the record schema is not a column of the table; set "
                + EVOLUTION_KEY
                + "=add-columns to add it as a nullable column, or drop it upstream");
      }
      changed = true;
      out.add(new StructField(in.name(), in.type(), true, in.metadata()));
      // so that two new fields differing only in case clash with each other too
      tableNamesLower.put(in.name().toLowerCase(Locale.ROOT), in.name());
    }
    return changed ? new StructType(out) : table;
  }

  private static boolean containsExact(StructType table, String name) {
    for (StructField f : table.fields()) {
      if (f.name().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return {@code table} itself when unchanged
   */
  private static boolean isLeaf(DeltaType type) {
    return type instanceof PrimitiveType || type instanceof DecimalType;
  }

  /** The field at its wider type, the change appended to its {@code delta.typeChanges}. */
  private static StructField widened(StructField field, DeltaType wider) {
    Map<String, Object> metadata = new java.util.LinkedHashMap<>(field.metadata());
    List<Object> changes = new ArrayList<>();
    if (metadata.get(TYPE_CHANGES) instanceof List<?> earlier) {
      changes.addAll(earlier);
    }
    Map<String, Object> change = new java.util.LinkedHashMap<>();
    change.put("fromType", field.type().simpleString());
    change.put("toType", wider.simpleString());
    changes.add(change);
    metadata.put(TYPE_CHANGES, changes);
    return new StructField(field.name(), wider, field.nullable(), metadata);
  }

  private static DeltaType type(
      String column, DeltaType table, DeltaType incoming, Mode mode, boolean widen) {
    if (table instanceof StructType t && incoming instanceof StructType i) {
      return struct(column, t, i, mode, widen);
    }
    if (table instanceof ArrayType t && incoming instanceof ArrayType i) {
      if (i.containsNull() && !t.containsNull()) {
        throw nullableMismatch(column + ".element", t.elementType(), i.elementType());
      }
      // Widening inside arrays and maps would need a field path in delta.typeChanges: not done.
      DeltaType element = type(column + ".element", t.elementType(), i.elementType(), mode, false);
      return element == t.elementType() ? t : new ArrayType(element, t.containsNull());
    }
    if (table instanceof MapType t && incoming instanceof MapType i) {
      if (i.valueContainsNull() && !t.valueContainsNull()) {
        throw nullableMismatch(column + ".value", t.valueType(), i.valueType());
      }
      DeltaType key = type(column + ".key", t.keyType(), i.keyType(), mode, false);
      DeltaType value = type(column + ".value", t.valueType(), i.valueType(), mode, false);
      return key == t.keyType() && value == t.valueType()
          ? t
          : new MapType(key, value, t.valueContainsNull());
    }
    if (Widening.fits(incoming, table)) {
      // Written at the column's type: an int field into a long column.
      return table;
    }
    if (widen && Widening.canWidenColumn(table, incoming)) {
      return incoming;
    }
    if (!table.equals(incoming)) {
      throw new SchemaMappingException(
          "Column '"
              + column
              + "' is "
              + describe(table)
              + " in the table but "
              + describe(incoming)
              + " in the record schema; the column cannot take it: "
              + "convert the field to "
              + typeName(table)
              + " upstream (e.g. with a Cast SMT), write to a new table"
              + (Widening.canWidenColumn(table, incoming)
                  ? ", or enable type widening on the table (delta.enableTypeWidening=true)"
                  : ""));
    }
    return table;
  }

  private static SchemaMappingException nullableMismatch(
      String column, DeltaType table, DeltaType incoming) {
    return new SchemaMappingException(
        "Column '"
            + column
            + "' is NOT NULL "
            + describe(table)
            + " in the table but may be null "
            + describe(incoming)
            + " in the record schema; make it required "
            + "in the record schema (or nullable in the table)");
  }

  private static String describe(DeltaType type) {
    return "(" + typeName(type) + ")";
  }

  static String typeName(DeltaType type) {
    return type.simpleString();
  }

  private static String qualify(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
