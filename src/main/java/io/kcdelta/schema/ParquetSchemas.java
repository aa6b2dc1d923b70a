package io.kcdelta.schema;

import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.DOUBLE;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * Connect schema to the Parquet schema of a data file, in the layout Spark and Delta readers
 * expect.
 */
final class ParquetSchemas {
  /** Spark names its root this way; readers ignore the name, but it keeps files familiar. */
  static final String MESSAGE_NAME = "spark_schema";

  static final String LIST_GROUP = "list";
  static final String LIST_ELEMENT = "element";
  static final String MAP_GROUP = "key_value";
  static final String MAP_KEY = "key";
  static final String MAP_VALUE = "value";

  private ParquetSchemas() {}

  static MessageType message(Schema valueSchema, Set<String> excluded, FileColumns columns) {
    List<Type> fields = new ArrayList<>();
    for (Field f : valueSchema.fields()) {
      if (!excluded.contains(f.name())) {
        StructField column = columnOf(f.name(), columns.schema(), f);
        fields.add(
            withId(
                type(
                    f.name(),
                    columns.nameOf(column),
                    f.schema(),
                    column.type(),
                    columns,
                    repetition(f.schema())),
                columns.idOf(column)));
      }
    }
    if (fields.isEmpty()) {
      throw new SchemaMappingException(
          "No column left to write: every field of the record is a "
              + "partition column "
              + excluded
              + "; a Delta data file needs at least one data column");
    }
    return new MessageType(MESSAGE_NAME, fields);
  }

  private static StructField columnOf(String column, StructType struct, Field f) {
    StructField c = struct.field(f.name());
    if (c == null) {
      throw new SchemaMappingException(
          "Field '" + column + "' of the record has no column in the table's schema");
    }
    return c;
  }

  private static Type withId(Type type, Integer id) {
    return id == null ? type : type.withId(id);
  }

  private static Repetition repetition(Schema schema) {
    return schema.isOptional() ? Repetition.OPTIONAL : Repetition.REQUIRED;
  }

  /**
   * Bytes of the shortest two's complement array that holds every unscaled value of this precision.
   */
  static int decimalBytes(int precision) {
    int magnitudeBits =
        java.math.BigInteger.TEN.pow(precision).subtract(java.math.BigInteger.ONE).bitLength();
    return (magnitudeBits + 1 + 7) / 8; // + 1 sign bit, rounded up to whole bytes
  }

  /**
   * The Parquet type of a record field written into a column of Delta type {@code target}: leaves
   * are stored as the column's type (which may be wider than the field's), groups follow the
   * record's structure.
   */
  private static Type type(
      String column,
      String name,
      Schema schema,
      DeltaType target,
      FileColumns columns,
      Repetition rep) {
    ConnectTypes kind = ConnectTypes.of(schema);
    if (kind != ConnectTypes.STRUCT && kind != ConnectTypes.ARRAY && kind != ConnectTypes.MAP) {
      return leaf(column, name, schema, target, rep);
    }
    switch (kind) {
      case STRUCT:
        {
          if (schema.fields().isEmpty()) {
            throw new SchemaMappingException(
                "Column '"
                    + column
                    + "' is a STRUCT without fields; "
                    + "Parquet cannot store an empty group: drop the field upstream");
          }
          if (!(target instanceof StructType struct)) {
            throw mismatch(column, schema, target);
          }
          Types.GroupBuilder<org.apache.parquet.schema.GroupType> group = Types.buildGroup(rep);
          for (Field f : schema.fields()) {
            String nested = column + "." + f.name();
            StructField c = columnOf(nested, struct, f);
            group.addField(
                withId(
                    type(
                        nested,
                        columns.nameOf(c),
                        f.schema(),
                        c.type(),
                        columns,
                        repetition(f.schema())),
                    columns.idOf(c)));
          }
          return group.named(name);
        }
      case ARRAY:
        {
          if (!(target instanceof ArrayType array)) {
            throw mismatch(column, schema, target);
          }
          Schema elem = schema.valueSchema();
          return Types.buildGroup(rep)
              .as(LogicalTypeAnnotation.listType())
              .addField(
                  Types.repeatedGroup()
                      .addField(
                          type(
                              column + ".element",
                              LIST_ELEMENT,
                              elem,
                              array.elementType(),
                              columns,
                              repetition(elem)))
                      .named(LIST_GROUP))
              .named(name);
        }
      case MAP:
        {
          if (!(target instanceof MapType map)) {
            throw mismatch(column, schema, target);
          }
          Schema value = schema.valueSchema();
          return Types.buildGroup(rep)
              .as(LogicalTypeAnnotation.mapType())
              .addField(
                  Types.repeatedGroup()
                      // Parquet map keys are always required; a null key fails at write time.
                      .addField(
                          type(
                              column + ".key",
                              MAP_KEY,
                              schema.keySchema(),
                              map.keyType(),
                              columns,
                              Repetition.REQUIRED))
                      .addField(
                          type(
                              column + ".value",
                              MAP_VALUE,
                              value,
                              map.valueType(),
                              columns,
                              repetition(value)))
                      .named(MAP_GROUP))
              .named(name);
        }
      default:
        throw new SchemaMappingException(
            "Column '" + column + "': Connect type " + schema.type() + " has no Parquet mapping");
    }
  }

  /** A leaf, stored as the Delta type of its column, which the record's type must fit. */
  private static Type leaf(
      String column, String name, Schema schema, DeltaType target, Repetition rep) {
    ConnectTypes kind = ConnectTypes.of(schema);
    if (!Widening.writable(kind, schema, target)) {
      throw mismatch(column, schema, target);
    }
    if (target instanceof DecimalType d) {
      LogicalTypeAnnotation decimal = LogicalTypeAnnotation.decimalType(d.scale(), d.precision());
      if (d.precision() <= 9) {
        return Types.primitive(INT32, rep).as(decimal).named(name);
      }
      if (d.precision() <= 18) {
        return Types.primitive(INT64, rep).as(decimal).named(name);
      }
      return Types.primitive(FIXED_LEN_BYTE_ARRAY, rep)
          .length(decimalBytes(d.precision()))
          .as(decimal)
          .named(name);
    }
    switch ((PrimitiveType) target) {
      case BYTE:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.intType(8, true)).named(name);
      case SHORT:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.intType(16, true)).named(name);
      case INTEGER:
        return Types.primitive(INT32, rep).named(name);
      case LONG:
        return Types.primitive(INT64, rep).named(name);
      case FLOAT:
        return Types.primitive(FLOAT, rep).named(name);
      case DOUBLE:
        return Types.primitive(DOUBLE, rep).named(name);
      case BOOLEAN:
        return Types.primitive(BOOLEAN, rep).named(name);
      case STRING:
        return Types.primitive(BINARY, rep).as(LogicalTypeAnnotation.stringType()).named(name);
      case BINARY:
        return Types.primitive(BINARY, rep).named(name);
      case DATE:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.dateType()).named(name);
      case TIMESTAMP:
        return Types.primitive(INT64, rep)
            .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS))
            .named(name);
      case TIMESTAMP_NTZ:
        return Types.primitive(INT64, rep)
            .as(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS))
            .named(name);
      default:
        throw mismatch(column, schema, target);
    }
  }

  private static SchemaMappingException mismatch(String column, Schema schema, DeltaType target) {
    return new SchemaMappingException(
        "Column '"
            + column
            + "' is "
            + target.simpleString()
            + " in the table; the record's "
            + schema.type()
            + (schema.name() == null ? "" : " (" + schema.name() + ")")
            + " cannot be written into it");
  }
}
