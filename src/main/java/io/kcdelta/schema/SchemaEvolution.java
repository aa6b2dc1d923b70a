package io.kcdelta.schema;

import io.delta.standalone.types.ArrayType;
import io.delta.standalone.types.DataType;
import io.delta.standalone.types.DecimalType;
import io.delta.standalone.types.MapType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
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
    return struct("", table, incoming, mode);
  }

  private static StructType struct(String path, StructType table, StructType incoming, Mode mode) {
    Map<String, StructField> incomingByName = new HashMap<>();
    for (StructField f : incoming.getFields()) {
      incomingByName.put(f.getName(), f);
    }
    Map<String, String> tableNamesLower = new HashMap<>();
    for (StructField f : table.getFields()) {
      tableNamesLower.put(f.getName().toLowerCase(Locale.ROOT), f.getName());
    }

    boolean changed = false;
    List<StructField> out = new ArrayList<>(table.length() + 1);
    for (StructField tableField : table.getFields()) {
      String column = qualify(path, tableField.getName());
      StructField in = incomingByName.get(tableField.getName());
      if (in == null) {
        if (!tableField.isNullable()) {
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
      if (in.isNullable() && !tableField.isNullable()) {
        throw new SchemaMappingException(
            "Column '"
                + column
                + "' is NOT NULL "
                + describe(tableField.getDataType())
                + " in the table but optional "
                + describe(in.getDataType())
                + " in the record schema; "
                + "make the field required in the record schema (or the column nullable in the table)");
      }
      DataType evolved = type(column, tableField.getDataType(), in.getDataType(), mode);
      if (evolved != tableField.getDataType()) {
        changed = true;
        out.add(
            new StructField(
                tableField.getName(), evolved, tableField.isNullable(), tableField.getMetadata()));
      } else {
        out.add(tableField);
      }
    }

    for (StructField in : incoming.getFields()) {
      if (containsExact(table, in.getName())) {
        continue;
      }
      String column = qualify(path, in.getName());
      String clash = tableNamesLower.get(in.getName().toLowerCase(Locale.ROOT));
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
                + describe(in.getDataType())
                + " of the record schema is not a column of the table; set "
                + EVOLUTION_KEY
                + "=add-columns to add it as a nullable column, or drop it upstream");
      }
      changed = true;
      out.add(new StructField(in.getName(), in.getDataType(), true, in.getMetadata()));
      // so that two new fields differing only in case clash with each other too
      tableNamesLower.put(in.getName().toLowerCase(Locale.ROOT), in.getName());
    }
    return changed ? new StructType(out.toArray(new StructField[0])) : table;
  }

  private static boolean containsExact(StructType table, String name) {
    for (StructField f : table.getFields()) {
      if (f.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return {@code table} itself when unchanged
   */
  private static DataType type(String column, DataType table, DataType incoming, Mode mode) {
    if (table instanceof StructType && incoming instanceof StructType) {
      return struct(column, (StructType) table, (StructType) incoming, mode);
    }
    if (table instanceof ArrayType && incoming instanceof ArrayType) {
      ArrayType t = (ArrayType) table;
      ArrayType i = (ArrayType) incoming;
      if (i.containsNull() && !t.containsNull()) {
        throw nullableMismatch(column + ".element", t.getElementType(), i.getElementType());
      }
      DataType element = type(column + ".element", t.getElementType(), i.getElementType(), mode);
      return element == t.getElementType() ? t : new ArrayType(element, t.containsNull());
    }
    if (table instanceof MapType && incoming instanceof MapType) {
      MapType t = (MapType) table;
      MapType i = (MapType) incoming;
      if (i.valueContainsNull() && !t.valueContainsNull()) {
        throw nullableMismatch(column + ".value", t.getValueType(), i.getValueType());
      }
      DataType key = type(column + ".key", t.getKeyType(), i.getKeyType(), mode);
      DataType value = type(column + ".value", t.getValueType(), i.getValueType(), mode);
      return key == t.getKeyType() && value == t.getValueType()
          ? t
          : new MapType(key, value, t.valueContainsNull());
    }
    if (!table.equals(incoming)) {
      throw new SchemaMappingException(
          "Column '"
              + column
              + "' is "
              + describe(table)
              + " in the table but "
              + describe(incoming)
              + " in the record schema; Delta cannot change a column's type on append: "
              + "convert the field to "
              + typeName(table)
              + " upstream (e.g. with a Cast SMT) "
              + "or write to a new table");
    }
    return table;
  }

  private static SchemaMappingException nullableMismatch(
      String column, DataType table, DataType incoming) {
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

  private static String describe(DataType type) {
    return "(" + typeName(type) + ")";
  }

  /**
   * Standalone's own type strings drop decimal precision and container contents; messages need
   * them.
   */
  static String typeName(DataType type) {
    if (type instanceof DecimalType) {
      DecimalType d = (DecimalType) type;
      return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
    }
    if (type instanceof ArrayType) {
      return "array<" + typeName(((ArrayType) type).getElementType()) + ">";
    }
    if (type instanceof MapType) {
      MapType m = (MapType) type;
      return "map<" + typeName(m.getKeyType()) + "," + typeName(m.getValueType()) + ">";
    }
    if (type instanceof StructType) {
      StringBuilder out = new StringBuilder("struct<");
      StructField[] fields = ((StructType) type).getFields();
      for (int i = 0; i < fields.length; i++) {
        out.append(i == 0 ? "" : ",")
            .append(fields[i].getName())
            .append(':')
            .append(typeName(fields[i].getDataType()));
      }
      return out.append('>').toString();
    }
    return type.getSimpleString();
  }

  private static String qualify(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
