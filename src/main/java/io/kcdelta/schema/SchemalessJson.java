package io.kcdelta.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Schemaless JSON values (what JsonConverter gives with {@code schemas.enable=false}: maps, lists,
 * Long, Double, Boolean, String, null) written by a table's schema: each value is coerced into its
 * column's type, exactly or not at all, and the names of what failed are in the message.
 *
 * <p>Coercions: integers into integer columns within range; any number into float/double (float
 * within range); a number or numeric string into a decimal column when it fits the column's
 * precision and scale without rounding; an ISO-8601 string with offset or epoch milliseconds into
 * timestamp; an ISO date or epoch days into date; base64 into binary; objects into structs and
 * maps, lists into arrays. Nothing else: a string is not a number, a number not a string.
 */
public final class SchemalessJson {
  private SchemalessJson() {}

  /** What a key of a schemaless record that the table has no column for does. */
  public enum UnknownFields {
    /** Dropped. */
    IGNORE,
    /** The record is errant. */
    FAIL,
    /** A new nullable column, typed by the key's value. */
    ADD_COLUMNS
  }

  private static final long DAY_MS = 86_400_000L;

  /** The Connect schema whose Delta form is {@code table}: nullable columns are optional. */
  public static Schema connectSchemaOf(StructType table) {
    return struct(table, false);
  }

  private static Schema struct(StructType type, boolean optional) {
    SchemaBuilder b = SchemaBuilder.struct();
    for (StructField f : type.fields()) {
      b.field(f.name(), connect(f.type(), f.nullable()));
    }
    return optional ? b.optional().build() : b.build();
  }

  private static Schema connect(DeltaType type, boolean nullable) {
    SchemaBuilder b;
    if (type instanceof StructType s) {
      return struct(s, nullable);
    } else if (type instanceof ArrayType a) {
      b = SchemaBuilder.array(connect(a.elementType(), a.containsNull()));
    } else if (type instanceof MapType m) {
      b =
          SchemaBuilder.map(
              connect(m.keyType(), false), connect(m.valueType(), m.valueContainsNull()));
    } else if (type instanceof DecimalType d) {
      b =
          Decimal.builder(d.scale())
              .parameter(ConnectTypes.PRECISION_PARAM, String.valueOf(d.precision()));
    } else if (!(type instanceof PrimitiveType p) || (b = primitive(p)) == null) {
      throw new SchemaMappingException(
          "The table has a column of type "
              + type.simpleString()
              + ", which this sink cannot write");
    }
    return nullable ? b.optional().build() : b.build();
  }

  /** The Connect schema a column of this type takes (null: none). */
  private static SchemaBuilder primitive(PrimitiveType type) {
    return switch (type) {
      case TIMESTAMP -> Timestamp.builder();
      case DATE -> Date.builder();
      case LONG -> SchemaBuilder.int64();
      case INTEGER -> SchemaBuilder.int32();
      case SHORT -> SchemaBuilder.int16();
      case BYTE -> SchemaBuilder.int8();
      case DOUBLE -> SchemaBuilder.float64();
      case FLOAT -> SchemaBuilder.float32();
      case BOOLEAN -> SchemaBuilder.bool();
      case STRING -> SchemaBuilder.string();
      case BINARY -> SchemaBuilder.bytes();
      case TIMESTAMP_NTZ -> null;
    };
  }

  /**
   * The JSON value in the form {@code schema} holds, for the column {@code path}.
   *
   * @throws DataException naming the column, the value and the type when it does not fit
   */
  public static Object coerce(Object value, Schema schema, String path) {
    if (value == null) {
      if (!schema.isOptional()) {
        throw new DataException(
            "'"
                + path
                + "' is missing or null, but the column is NOT NULL ("
                + typeName(schema)
                + ")");
      }
      return null;
    }
    switch (ConnectTypes.of(schema)) {
      case DECIMAL:
        return decimal(value, schema, path);
      case TIMESTAMP:
        return new java.util.Date(timestampMs(value, schema, path));
      case DATE:
        return new java.util.Date(epochDay(value, schema, path) * DAY_MS);
      case INT8:
        return (byte) integer(value, schema, path, Byte.MIN_VALUE, Byte.MAX_VALUE);
      case INT16:
        return (short) integer(value, schema, path, Short.MIN_VALUE, Short.MAX_VALUE);
      case INT32:
        return (int) integer(value, schema, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case INT64:
        return integer(value, schema, path, Long.MIN_VALUE, Long.MAX_VALUE);
      case FLOAT32:
        {
          double d = number(value, schema, path).doubleValue();
          if (Double.isFinite(d) && Math.abs(d) > Float.MAX_VALUE) {
            throw mismatch(value, schema, path, "out of the float range");
          }
          return (float) d;
        }
      case FLOAT64:
        return number(value, schema, path).doubleValue();
      case BOOLEAN:
        if (value instanceof Boolean) {
          return value;
        }
        throw mismatch(value, schema, path, "not true or false");
      case STRING:
        if (value instanceof String) {
          return value;
        }
        throw mismatch(value, schema, path, "not a JSON string");
      case BYTES:
        if (value instanceof byte[]) {
          return value;
        }
        if (value instanceof String s) {
          try {
            return Base64.getDecoder().decode(s);
          } catch (IllegalArgumentException e) {
            throw mismatch(value, schema, path, "not base64");
          }
        }
        throw mismatch(value, schema, path, "not a base64 string");
      case STRUCT:
        if (value instanceof Map<?, ?> m) {
          return struct(m, schema, path);
        }
        throw mismatch(value, schema, path, "not a JSON object");
      case ARRAY:
        if (value instanceof List<?> list) {
          List<Object> out = new ArrayList<>(list.size());
          for (int i = 0; i < list.size(); i++) {
            out.add(coerce(list.get(i), schema.valueSchema(), path + "[" + i + "]"));
          }
          return out;
        }
        throw mismatch(value, schema, path, "not a JSON array");
      case MAP:
        if (value instanceof Map<?, ?> m) {
          Map<Object, Object> out = new LinkedHashMap<>();
          for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            out.put(
                mapKey(key, schema.keySchema(), path),
                coerce(e.getValue(), schema.valueSchema(), path + "[" + key + "]"));
          }
          return out;
        }
        throw mismatch(value, schema, path, "not a JSON object");
      default:
        throw mismatch(value, schema, path, "a type this sink cannot write");
    }
  }

  /**
   * The JSON object as a Struct of {@code schema}. At the top level ({@code path} empty) keys the
   * schema lacks are left out (the caller decides on them, see {@link #hasUnknownKeys}); inside a
   * struct column they make the record errant.
   */
  public static Struct struct(Map<?, ?> json, Schema schema, String path) {
    Struct out = new Struct(schema);
    String prefix = path.isEmpty() ? "" : path + ".";
    int found = 0;
    for (Field f : schema.fields()) {
      Object v = json.get(f.name());
      if (v != null) {
        found++;
      }
      // A top-level field's path is its name: no string built per field and record.
      out.put(f, coerce(v, f.schema(), path.isEmpty() ? f.name() : prefix + f.name()));
    }
    if (!path.isEmpty() && found < nonNullValues(json)) {
      List<String> unknown = unknownKeys(json, schema);
      throw new DataException(
          "'"
              + prefix
              + unknown.get(0)
              + "' is not a field of the table's struct column '"
              + path
              + "'; only top-level columns are added from schemaless records: add it to the"
              + " table, or drop it upstream");
    }
    return out;
  }

  /**
   * Whether the object has non-null keys that {@code converted} (its {@link #struct}) left out: a
   * count, so the common case (none) costs no key lookups.
   */
  public static boolean hasUnknownKeys(Map<?, ?> json, Struct converted) {
    int fields = 0;
    for (Field f : converted.schema().fields()) {
      if (converted.get(f) != null) {
        fields++;
      }
    }
    return nonNullValues(json) > fields;
  }

  private static int nonNullValues(Map<?, ?> json) {
    int n = 0;
    for (Object v : json.values()) {
      if (v != null) {
        n++;
      }
    }
    return n;
  }

  /** Keys of the object with a non-null value that the struct schema has no field for. */
  public static List<String> unknownKeys(Map<?, ?> json, Schema schema) {
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<?, ?> e : json.entrySet()) {
      if (e.getValue() != null && schema.field(String.valueOf(e.getKey())) == null) {
        unknown.add(String.valueOf(e.getKey()));
      }
    }
    return unknown;
  }

  /**
   * The schema of a new column for this JSON value: long, double, string, boolean, struct or array
   * (all nullable); null when the value says nothing yet (null, an empty list or object).
   */
  public static Schema infer(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Boolean) {
      return Schema.OPTIONAL_BOOLEAN_SCHEMA;
    }
    if (value instanceof String) {
      return Schema.OPTIONAL_STRING_SCHEMA;
    }
    if (isIntegral(value)) {
      return Schema.OPTIONAL_INT64_SCHEMA;
    }
    if (value instanceof Number) {
      return Schema.OPTIONAL_FLOAT64_SCHEMA;
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Schema> fields = new LinkedHashMap<>();
      m.forEach(
          (k, v) -> {
            Schema s = infer(v);
            if (s != null) {
              fields.merge(String.valueOf(k), s, SchemalessJson::widen);
            }
          });
      return fields.isEmpty() ? null : struct(fields);
    }
    if (value instanceof List<?> list) {
      Schema element = null;
      for (Object v : list) {
        Schema s = infer(v);
        element = element == null ? s : s == null ? element : widen(element, s);
      }
      return element == null ? null : SchemaBuilder.array(element).optional().build();
    }
    return null;
  }

  /**
   * One inferred schema for two values of a field: long and double make double; structs merge their
   * fields; otherwise the first wins (a later value that does not fit it is errant).
   */
  public static Schema widen(Schema a, Schema b) {
    if (a.equals(b)) {
      return a;
    }
    if (isNumber(a) && isNumber(b)) {
      return Schema.OPTIONAL_FLOAT64_SCHEMA;
    }
    if (a.type() == Schema.Type.STRUCT && b.type() == Schema.Type.STRUCT) {
      Map<String, Schema> fields = new LinkedHashMap<>();
      a.fields().forEach(f -> fields.put(f.name(), f.schema()));
      b.fields().forEach(f -> fields.merge(f.name(), f.schema(), SchemalessJson::widen));
      return struct(fields);
    }
    if (a.type() == Schema.Type.ARRAY && b.type() == Schema.Type.ARRAY) {
      return SchemaBuilder.array(widen(a.valueSchema(), b.valueSchema())).optional().build();
    }
    return a;
  }

  /** An optional struct schema of these fields, in order. */
  public static Schema struct(Map<String, Schema> fields) {
    SchemaBuilder b = SchemaBuilder.struct().optional();
    fields.forEach(b::field);
    return b.build();
  }

  private static boolean isNumber(Schema s) {
    return s.type() == Schema.Type.INT64 || s.type() == Schema.Type.FLOAT64;
  }

  private static boolean isIntegral(Object v) {
    return v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte
        || v instanceof BigInteger;
  }

  private static Number number(Object value, Schema schema, String path) {
    if (value instanceof Number n) {
      return n;
    }
    throw mismatch(value, schema, path, "not a JSON number");
  }

  private static long integer(Object value, Schema schema, String path, long min, long max) {
    if (!isIntegral(value)) {
      throw mismatch(value, schema, path, "not an integer");
    }
    BigInteger big =
        value instanceof BigInteger b ? b : BigInteger.valueOf(((Number) value).longValue());
    if (big.compareTo(BigInteger.valueOf(min)) < 0 || big.compareTo(BigInteger.valueOf(max)) > 0) {
      throw mismatch(value, schema, path, "out of range [" + min + ", " + max + "]");
    }
    return big.longValue();
  }

  private static BigDecimal decimal(Object value, Schema schema, String path) {
    BigDecimal d;
    try {
      if (value instanceof BigDecimal b) {
        d = b;
      } else if (value instanceof Double || value instanceof Float) {
        double v = ((Number) value).doubleValue();
        if (!Double.isFinite(v)) {
          throw mismatch(value, schema, path, "not a finite number");
        }
        // The shortest decimal that reads back as this double: what the JSON text said.
        d = new BigDecimal(Double.toString(v));
      } else if (isIntegral(value)) {
        d = new BigDecimal(value.toString());
      } else if (value instanceof String s) {
        d = new BigDecimal(s.trim());
      } else {
        throw mismatch(value, schema, path, "not a number or numeric string");
      }
    } catch (NumberFormatException e) {
      throw mismatch(value, schema, path, "not a number");
    }
    int scale = ConnectTypes.decimalScale(schema);
    int precision = ConnectTypes.decimalPrecision(schema);
    BigDecimal scaled;
    try {
      scaled = d.setScale(scale);
    } catch (ArithmeticException e) {
      throw mismatch(value, schema, path, "has more than " + scale + " decimal places");
    }
    if (scaled.precision() > precision) {
      throw mismatch(value, schema, path, "has more than " + precision + " digits");
    }
    return scaled;
  }

  private static long timestampMs(Object value, Schema schema, String path) {
    if (isIntegral(value)) {
      return integer(value, schema, path, Long.MIN_VALUE, Long.MAX_VALUE);
    }
    if (value instanceof String s) {
      try {
        return OffsetDateTime.parse(s.trim()).toInstant().toEpochMilli();
      } catch (DateTimeParseException e) {
        try {
          return Instant.parse(s.trim()).toEpochMilli();
        } catch (DateTimeParseException e2) {
          throw mismatch(
              value,
              schema,
              path,
              "not an ISO-8601 timestamp with offset (e.g. 2026-12-04T10:15:30Z)");
        }
      }
    }
    throw mismatch(value, schema, path, "not epoch milliseconds or an ISO-8601 string");
  }

  private static long epochDay(Object value, Schema schema, String path) {
    if (isIntegral(value)) {
      return integer(value, schema, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
    if (value instanceof String s) {
      try {
        return LocalDate.parse(s.trim()).toEpochDay();
      } catch (DateTimeParseException e) {
        throw mismatch(value, schema, path, "not an ISO date (e.g. 2026-12-04)");
      }
    }
    throw mismatch(value, schema, path, "not epoch days or an ISO date string");
  }

  private static Object mapKey(String key, Schema keySchema, String path) {
    if (keySchema.type() == Schema.Type.STRING) {
      return key;
    }
    if (keySchema.type() == Schema.Type.INT64 || keySchema.type() == Schema.Type.INT32) {
      try {
        return coerce(Long.parseLong(key), keySchema, path + " key");
      } catch (NumberFormatException e) {
        throw mismatch(key, keySchema, path + " key", "not an integer");
      }
    }
    throw mismatch(key, keySchema, path + " key", "a map key type this sink cannot write");
  }

  private static DataException mismatch(Object value, Schema schema, String path, String why) {
    String shown;
    if (value instanceof String s) {
      shown = "\"" + abbreviate(s) + "\"";
    } else if (value instanceof Double d && Double.isFinite(d)) {
      shown = abbreviate(BigDecimal.valueOf(d).toPlainString());
    } else {
      shown = abbreviate(String.valueOf(value));
    }
    return new DataException(
        "'"
            + path
            + "': "
            + shown
            + " cannot be written to a "
            + typeName(schema)
            + " column: "
            + why);
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  /** The column type as Delta names it. */
  static String typeName(Schema schema) {
    return switch (ConnectTypes.of(schema)) {
      case DECIMAL ->
          "decimal("
              + ConnectTypes.decimalPrecision(schema)
              + ","
              + ConnectTypes.decimalScale(schema)
              + ")";
      case TIMESTAMP -> "timestamp";
      case DATE -> "date";
      case TIME, INT32 -> "integer";
      case INT8 -> "byte";
      case INT16 -> "short";
      case INT64 -> "long";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
      case BOOLEAN -> "boolean";
      case STRING -> "string";
      case BYTES -> "binary";
      case STRUCT -> "struct";
      case ARRAY -> "array";
      case MAP -> "map";
    };
  }

  /** Keys of the object that differ from a schema field only in case (Delta ignores case). */
  public static Map<String, String> caseOnlyClashes(List<String> keys, Schema schema) {
    Map<String, String> byLower = new HashMap<>();
    schema.fields().forEach(f -> byLower.put(f.name().toLowerCase(Locale.ROOT), f.name()));
    Map<String, String> clashes = new LinkedHashMap<>();
    for (String k : keys) {
      String column = byLower.get(k.toLowerCase(Locale.ROOT));
      if (column != null) {
        clashes.put(k, column);
      }
    }
    return clashes;
  }
}
