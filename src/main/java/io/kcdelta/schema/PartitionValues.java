package io.kcdelta.schema;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/** Delta partition values (the strings of AddFile.partitionValues) from Connect values. */
public final class PartitionValues {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  /** The form Delta (Spark's Cast to string, with micros kept) gives timestamp partition values. */
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  private PartitionValues() {}

  /**
   * @throws SchemaMappingException if the field's type cannot be a Delta partition column
   */
  public static void checkPartitionable(String column, Schema fieldSchema) {
    if (fieldSchema == null) {
      throw new SchemaMappingException(
          "Partition column '" + column + "' is not a field of the record schema");
    }
    ConnectTypes type = ConnectTypes.of(fieldSchema);
    switch (type) {
      case BYTES:
      case STRUCT:
      case ARRAY:
      case MAP:
        throw new SchemaMappingException(
            "Partition column '"
                + column
                + "' is "
                + type
                + "; Delta partitions by numbers, strings, booleans, decimals, dates and timestamps only: "
                + "remove it from delta.table.partition.columns or derive a scalar field upstream");
      case DECIMAL:
        ConnectTypes.checkedDecimal(column, fieldSchema);
        return;
      default:
        return;
    }
  }

  /** Delta's serialized form of the value, or null for a null value. */
  public static String format(Object value, Schema fieldSchema) {
    if (value == null) {
      return null;
    }
    switch (ConnectTypes.of(fieldSchema)) {
      case INT8:
      case INT16:
      case INT32:
      case INT64:
      case FLOAT32:
      case FLOAT64:
      case BOOLEAN:
      case STRING:
        return value.toString();
      case DECIMAL:
        return ((BigDecimal) value).toPlainString();
      case DATE:
        return LocalDate.ofEpochDay(Math.floorDiv(millis(value), MILLIS_PER_DAY)).toString();
      case TIMESTAMP:
        return TIMESTAMP.format(Instant.ofEpochMilli(millis(value)));
      case TIME:
        return Integer.toString((int) Math.floorMod(millis(value), MILLIS_PER_DAY));
      default:
        throw new SchemaMappingException(
            "A " + fieldSchema.type() + " value cannot be a Delta partition value");
    }
  }

  private static long millis(Object value) {
    if (value instanceof java.util.Date) {
      return ((java.util.Date) value).getTime();
    }
    throw new DataException(
        "Expected a java.util.Date for a Connect Date/Time/Timestamp, got "
            + value.getClass().getName());
  }
}
