package io.kcdelta.parquet;

import java.math.BigDecimal;

/** Min/max of a decimal column; all values share the column's scale, so compareTo is exact. */
final class DecimalStats extends ColumnStats {
  private BigDecimal min;
  private BigDecimal max;

  void add(BigDecimal v) {
    if (min == null) {
      min = v;
      max = v;
    } else if (v.compareTo(min) < 0) {
      min = v;
    } else if (v.compareTo(max) > 0) {
      max = v;
    }
  }

  @Override
  boolean appendMin(StringBuilder out) {
    if (min == null) {
      return false;
    }
    out.append(min.toPlainString());
    return true;
  }

  @Override
  boolean appendMax(StringBuilder out) {
    if (max == null) {
      return false;
    }
    out.append(max.toPlainString());
    return true;
  }
}
