package io.kcdelta.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.parquet.schema.MessageType;

/** Connect schema to Delta and Parquet schemas (DESIGN's type mapping). */
public final class DeltaSchemas {
  private DeltaSchemas() {}

  /**
   * @throws SchemaMappingException if the schema is not a STRUCT or holds a type with no mapping
   */
  public static StructType toDelta(Schema valueSchema) {
    requireStruct(valueSchema);
    return struct("", valueSchema, false);
  }

  /** The Parquet schema of a data file, without the excluded top-level fields. */
  public static MessageType toParquet(Schema valueSchema, Set<String> excludedFields) {
    requireStruct(valueSchema);
    return toParquet(valueSchema, excludedFields, FileColumns.of(valueSchema));
  }

  /** The Parquet schema of a file of these records in a table with these columns. */
  public static MessageType toParquet(
      Schema valueSchema, Set<String> excludedFields, FileColumns columns) {
    requireStruct(valueSchema);
    return ParquetSchemas.message(
        valueSchema, excludedFields == null ? Set.of() : excludedFields, columns);
  }

  static void requireStruct(Schema valueSchema) {
    if (valueSchema == null) {
      throw new SchemaMappingException(
          "Record value has no schema; the Delta sink needs a STRUCT value "
              + "schema (use a converter with schemas, e.g. Avro, Protobuf, JSON Schema, or JsonConverter "
              + "with schemas.enable=true)");
    }
    if (valueSchema.type() != Schema.Type.STRUCT) {
      throw new SchemaMappingException(
          "Record value schema is "
              + valueSchema.type()
              + (valueSchema.name() == null ? "" : " (" + valueSchema.name() + ")")
              + ", but the Delta sink needs a STRUCT: one field per table column");
    }
  }

  /**
   * @param inCollection inside an array element or a map key/value: Delta rejects NOT NULL there
   *     (it cannot enforce it), so such fields are declared nullable; the Parquet files may still
   *     mark them required, which readers accept.
   */
  private static StructType struct(String path, Schema schema, boolean inCollection) {
    List<Field> fields = schema.fields();
    rejectCaseOnlyDuplicates(path, fields);
    List<StructField> out = new ArrayList<>(fields.size());
    for (Field f : fields) {
      String column = path.isEmpty() ? f.name() : path + "." + f.name();
      out.add(
          new StructField(
              f.name(),
              type(column, f.schema(), inCollection),
              inCollection || f.schema().isOptional()));
    }
    return new StructType(out);
  }

  /** Delta resolves column names case-insensitively, so "id" and "ID" would be one column. */
  private static void rejectCaseOnlyDuplicates(String path, List<Field> fields) {
    java.util.Map<String, String> seen = new java.util.HashMap<>();
    for (Field f : fields) {
      String other = seen.put(f.name().toLowerCase(java.util.Locale.ROOT), f.name());
      if (other != null) {
        String prefix = path.isEmpty() ? "" : path + ".";
        throw new SchemaMappingException(
            "Fields '"
                + prefix
                + other
                + "' and '"
                + prefix
                + f.name()
                + "' differ only in case; Delta column names are case-insensitive: rename one upstream");
      }
    }
  }

  /** The Delta type of a Connect primitive or Date/Time/Timestamp (not Decimal). */
  static DeltaType leafType(ConnectTypes kind) {
    switch (kind) {
      case INT8:
        return PrimitiveType.BYTE;
      case INT16:
        return PrimitiveType.SHORT;
      case INT32:
      case TIME:
        return PrimitiveType.INTEGER;
      case INT64:
        return PrimitiveType.LONG;
      case FLOAT32:
        return PrimitiveType.FLOAT;
      case FLOAT64:
        return PrimitiveType.DOUBLE;
      case BOOLEAN:
        return PrimitiveType.BOOLEAN;
      case STRING:
        return PrimitiveType.STRING;
      case BYTES:
        return PrimitiveType.BINARY;
      case DATE:
        return PrimitiveType.DATE;
      case TIMESTAMP:
        return PrimitiveType.TIMESTAMP;
      default:
        throw new IllegalArgumentException("not a leaf without parameters: " + kind);
    }
  }

  private static DeltaType type(String column, Schema schema, boolean inCollection) {
    ConnectTypes kind = ConnectTypes.of(schema);
    switch (kind) {
      case DECIMAL:
        {
          ConnectTypes.DecimalSpec spec = ConnectTypes.checkedDecimal(column, schema);
          return new DecimalType(spec.precision(), spec.scale());
        }
      case STRUCT:
        if (schema.fields().isEmpty()) {
          throw new SchemaMappingException(
              "Column '"
                  + column
                  + "' is a STRUCT without fields; "
                  + "Parquet cannot store an empty group: drop the field upstream");
        }
        return struct(column, schema, inCollection);
      case ARRAY:
        return new ArrayType(
            type(column + ".element", schema.valueSchema(), true),
            schema.valueSchema().isOptional());
      case MAP:
        return new MapType(
            type(column + ".key", schema.keySchema(), true),
            type(column + ".value", schema.valueSchema(), true),
            schema.valueSchema().isOptional());
      case INT8,
      INT16,
      INT32,
      TIME,
      INT64,
      FLOAT32,
      FLOAT64,
      BOOLEAN,
      STRING,
      BYTES,
      DATE,
      TIMESTAMP:
        return leafType(kind);
      default:
        throw new SchemaMappingException(
            "Column '" + column + "': Connect type " + schema.type() + " has no Delta mapping");
    }
  }
}
