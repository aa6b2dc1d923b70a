package io.kcdelta.parquet;

/**
 * Min/max of float and double columns; left out once a NaN or infinity makes them useless for
 * skipping.
 */
final class DoubleStats extends ColumnStats {
  private final boolean isFloat;
  private boolean seen;
  private boolean poisoned;
  private double min;
  private double max;

  DoubleStats(boolean isFloat) {
    this.isFloat = isFloat;
  }

  void add(double v) {
    if (poisoned) {
      return;
    }
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      poisoned = true;
      return;
    }
    if (!seen) {
      seen = true;
      min = v;
      max = v;
    } else if (v < min) {
      min = v;
    } else if (v > max) {
      max = v;
    }
  }

  @Override
  boolean appendMin(StringBuilder out) {
    return append(out, min);
  }

  @Override
  boolean appendMax(StringBuilder out) {
    return append(out, max);
  }

  private boolean append(StringBuilder out, double v) {
    if (!seen || poisoned) {
      return false;
    }
    // A float printed as a double would show widening noise (0.1f -> 0.10000000149011612).
    out.append(isFloat ? Float.toString((float) v) : Double.toString(v));
    return true;
  }
}
