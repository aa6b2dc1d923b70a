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

  static MessageType message(Schema valueSchema, Set<String> excluded) {
    List<Type> fields = new ArrayList<>();
    for (Field f : valueSchema.fields()) {
      if (!excluded.contains(f.name())) {
        fields.add(type(f.name(), f.name(), f.schema(), repetition(f.schema())));
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

  private static Type type(String column, String name, Schema schema, Repetition rep) {
    switch (ConnectTypes.of(schema)) {
      case INT8:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.intType(8, true)).named(name);
      case INT16:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.intType(16, true)).named(name);
      case INT32:
      case TIME:
        return Types.primitive(INT32, rep).named(name);
      case INT64:
        return Types.primitive(INT64, rep).named(name);
      case FLOAT32:
        return Types.primitive(FLOAT, rep).named(name);
      case FLOAT64:
        return Types.primitive(DOUBLE, rep).named(name);
      case BOOLEAN:
        return Types.primitive(BOOLEAN, rep).named(name);
      case STRING:
        return Types.primitive(BINARY, rep).as(LogicalTypeAnnotation.stringType()).named(name);
      case BYTES:
        return Types.primitive(BINARY, rep).named(name);
      case DECIMAL:
        {
          ConnectTypes.DecimalSpec spec = ConnectTypes.checkedDecimal(column, schema);
          LogicalTypeAnnotation decimal =
              LogicalTypeAnnotation.decimalType(spec.scale(), spec.precision());
          if (spec.precision() <= 9) {
            return Types.primitive(INT32, rep).as(decimal).named(name);
          }
          if (spec.precision() <= 18) {
            return Types.primitive(INT64, rep).as(decimal).named(name);
          }
          return Types.primitive(FIXED_LEN_BYTE_ARRAY, rep)
              .length(decimalBytes(spec.precision()))
              .as(decimal)
              .named(name);
        }
      case DATE:
        return Types.primitive(INT32, rep).as(LogicalTypeAnnotation.dateType()).named(name);
      case TIMESTAMP:
        return Types.primitive(INT64, rep)
            .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS))
            .named(name);
      case STRUCT:
        {
          if (schema.fields().isEmpty()) {
            throw new SchemaMappingException(
                "Column '"
                    + column
                    + "' is a STRUCT without fields; "
                    + "Parquet cannot store an empty group: drop the field upstream");
          }
          Types.GroupBuilder<org.apache.parquet.schema.GroupType> group = Types.buildGroup(rep);
          for (Field f : schema.fields()) {
            group.addField(
                type(column + "." + f.name(), f.name(), f.schema(), repetition(f.schema())));
          }
          return group.named(name);
        }
      case ARRAY:
        {
          Schema elem = schema.valueSchema();
          return Types.buildGroup(rep)
              .as(LogicalTypeAnnotation.listType())
              .addField(
                  Types.repeatedGroup()
                      .addField(type(column + ".element", LIST_ELEMENT, elem, repetition(elem)))
                      .named(LIST_GROUP))
              .named(name);
        }
      case MAP:
        {
          Schema value = schema.valueSchema();
          return Types.buildGroup(rep)
              .as(LogicalTypeAnnotation.mapType())
              .addField(
                  Types.repeatedGroup()
                      // Parquet map keys are always required; a null key fails at write time.
                      .addField(
                          type(column + ".key", MAP_KEY, schema.keySchema(), Repetition.REQUIRED))
                      .addField(type(column + ".value", MAP_VALUE, value, repetition(value)))
                      .named(MAP_GROUP))
              .named(name);
        }
      default:
        throw new SchemaMappingException(
            "Column '" + column + "': Connect type " + schema.type() + " has no Parquet mapping");
    }
  }
}
