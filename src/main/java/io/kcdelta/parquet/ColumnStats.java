package io.kcdelta.parquet;

/**
 * Delta statistics of one column of one file. Leaves count nulls; those with an order also keep min
 * and max. Subclasses get values already converted by the column's writer, so nothing is parsed
 * twice.
 */
abstract class ColumnStats {
  long nullCount;

  void addNull() {
    nullCount++;
  }

  /**
   * @return false when the column has no min (no order, only nulls, or NaN seen)
   */
  boolean appendMin(StringBuilder out) {
    return false;
  }

  boolean appendMax(StringBuilder out) {
    return false;
  }

  boolean appendNullCount(StringBuilder out) {
    out.append(nullCount);
    return true;
  }

  /** Binary, boolean, array and map columns: Delta keeps only their null count. */
  static final class NullsOnly extends ColumnStats {}
}
