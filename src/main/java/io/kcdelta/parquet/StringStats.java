package io.kcdelta.parquet;

import io.kcdelta.schema.JsonText;

/** Min/max of a string column, kept whole while writing and truncated Delta's way when rendered. */
final class StringStats extends ColumnStats {
  private String min;
  private String max;

  void add(String v) {
    if (min == null) {
      min = v;
      max = v;
    } else if (StringPrefixes.compareCodePoints(v, min) < 0) {
      min = v;
    } else if (StringPrefixes.compareCodePoints(v, max) > 0) {
      max = v;
    }
  }

  @Override
  boolean appendMin(StringBuilder out) {
    if (min == null) {
      return false;
    }
    JsonText.appendString(out, StringPrefixes.truncateMin(min));
    return true;
  }

  @Override
  boolean appendMax(StringBuilder out) {
    String kept = max == null ? null : StringPrefixes.truncateMax(max);
    if (kept == null) {
      return false;
    }
    JsonText.appendString(out, kept);
    return true;
  }
}
