package io.kcdelta.schema;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * The Connect types this connector distinguishes, logical types resolved once, so that the schema
 * mappers, the Parquet writer and the partition formatter agree on one reading of a Connect schema.
 */
public enum ConnectTypes {
  INT8,
  INT16,
  INT32,
  INT64,
  FLOAT32,
  FLOAT64,
  BOOLEAN,
  STRING,
  BYTES,
  DECIMAL,
  DATE,
  TIMESTAMP,
  TIME,
  STRUCT,
  ARRAY,
  MAP;

  /** Connect's own default when a Decimal schema does not say its precision (as Delta's widest). */
  public static final int DEFAULT_DECIMAL_PRECISION = 38;

  /** Delta (like Spark) has no decimal wider than this. */
  public static final int MAX_DECIMAL_PRECISION = 38;

  public static final String PRECISION_PARAM = "connect.decimal.precision";

  public static ConnectTypes of(Schema schema) {
    String logical = schema.name();
    if (logical != null) {
      switch (logical) {
        case Decimal.LOGICAL_NAME:
          if (schema.type() == Schema.Type.BYTES) {
            return DECIMAL;
          }
          break;
        case Date.LOGICAL_NAME:
          if (schema.type() == Schema.Type.INT32) {
            return DATE;
          }
          break;
        case Time.LOGICAL_NAME:
          if (schema.type() == Schema.Type.INT32) {
            return TIME;
          }
          break;
        case Timestamp.LOGICAL_NAME:
          if (schema.type() == Schema.Type.INT64) {
            return TIMESTAMP;
          }
          break;
        default:
          break;
      }
    }
    switch (schema.type()) {
      case INT8:
        return INT8;
      case INT16:
        return INT16;
      case INT32:
        return INT32;
      case INT64:
        return INT64;
      case FLOAT32:
        return FLOAT32;
      case FLOAT64:
        return FLOAT64;
      case BOOLEAN:
        return BOOLEAN;
      case STRING:
        return STRING;
      case BYTES:
        return BYTES;
      case STRUCT:
        return STRUCT;
      case ARRAY:
        return ARRAY;
      case MAP:
        return MAP;
      default:
        throw new SchemaMappingException("Connect type " + schema.type() + " has no Delta mapping");
    }
  }

  /**
   * @throws SchemaMappingException if the Decimal schema has no usable scale
   */
  public static int decimalScale(Schema decimalSchema) {
    String scale =
        decimalSchema.parameters() == null
            ? null
            : decimalSchema.parameters().get(Decimal.SCALE_FIELD);
    if (scale == null) {
      throw new SchemaMappingException(
          "Decimal schema without a '" + Decimal.SCALE_FIELD + "' parameter");
    }
    try {
      return Integer.parseInt(scale.trim());
    } catch (NumberFormatException e) {
      throw new SchemaMappingException("Decimal schema with a non-numeric scale '" + scale + "'");
    }
  }

  /**
   * @throws SchemaMappingException if the precision parameter is not a number
   */
  public static int decimalPrecision(Schema decimalSchema) {
    String precision =
        decimalSchema.parameters() == null ? null : decimalSchema.parameters().get(PRECISION_PARAM);
    if (precision == null) {
      return DEFAULT_DECIMAL_PRECISION;
    }
    try {
      return Integer.parseInt(precision.trim());
    } catch (NumberFormatException e) {
      throw new SchemaMappingException(
          "Decimal schema with a non-numeric precision '" + precision + "'");
    }
  }

  /** Precision and scale of a Decimal column. */
  public record DecimalSpec(int precision, int scale) {}

  /** Precision and scale of a Decimal schema, checked against what Delta can store. */
  public static DecimalSpec checkedDecimal(String column, Schema decimalSchema) {
    int precision = decimalPrecision(decimalSchema);
    int scale = decimalScale(decimalSchema);
    if (precision < 1 || precision > MAX_DECIMAL_PRECISION) {
      throw new SchemaMappingException(
          "Column '"
              + column
              + "': decimal precision "
              + precision
              + " is outside Delta's range 1.."
              + MAX_DECIMAL_PRECISION
              + "; cast the field to a narrower decimal or to a string upstream");
    }
    if (scale < 0 || scale > precision) {
      throw new SchemaMappingException(
          "Column '"
              + column
              + "': decimal scale "
              + scale
              + " must be between 0 and the precision "
              + precision
              + " (Delta has no negative scales); rescale the field upstream");
    }
    return new DecimalSpec(precision, scale);
  }
}
