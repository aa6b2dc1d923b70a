package io.kcdelta.schema;

import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * Which narrower types a column takes without a schema change (written at the column's type: an int
 * into a long column), and which column types a table with Delta's type widening may widen to take
 * a wider field (the protocol's "Type Widening": integers to wider integers, float to double,
 * integers to double, a decimal to one with at least as many digits on each side of the point).
 */
public final class Widening {
  /** Integer types, narrowest first. */
  private static final List<PrimitiveType> INTEGERS =
      List.of(PrimitiveType.BYTE, PrimitiveType.SHORT, PrimitiveType.INTEGER, PrimitiveType.LONG);

  private Widening() {}

  /**
   * Whether a value of type {@code value} is written into a column of type {@code column} exactly:
   * the same type, or one the writer widens on write.
   */
  public static boolean fits(DeltaType value, DeltaType column) {
    if (value.equals(column)) {
      return true;
    }
    if (value instanceof PrimitiveType v && column instanceof PrimitiveType c) {
      int from = INTEGERS.indexOf(v);
      if (from >= 0) {
        int to = INTEGERS.indexOf(c);
        return to > from || (c == PrimitiveType.DOUBLE && v != PrimitiveType.LONG);
      }
      return (v == PrimitiveType.FLOAT && c == PrimitiveType.DOUBLE)
          || (v == PrimitiveType.TIMESTAMP && c == PrimitiveType.TIMESTAMP_NTZ);
    }
    return false;
  }

  /** Whether a leaf of the record can be written into a column of Delta type {@code column}. */
  static boolean writable(ConnectTypes kind, Schema schema, DeltaType column) {
    if (kind == ConnectTypes.DECIMAL) {
      ConnectTypes.DecimalSpec spec = ConnectTypes.checkedDecimal("", schema);
      return column.equals(new DecimalType(spec.precision(), spec.scale()));
    }
    return fits(DeltaSchemas.leafType(kind), column);
  }

  /**
   * Whether a table with type widening enabled may change a column of type {@code column} to {@code
   * wider}. A timestamp stays what it is: the protocol widens none to another.
   */
  public static boolean canWidenColumn(DeltaType column, DeltaType wider) {
    if (column instanceof DecimalType c && wider instanceof DecimalType w) {
      return w.scale() >= c.scale() && w.precision() - w.scale() >= c.precision() - c.scale();
    }
    return !(column.equals(PrimitiveType.TIMESTAMP) || column.equals(PrimitiveType.DATE))
        && !column.equals(wider)
        && fits(column, wider);
  }
}
