package io.kcdelta.parquet;

import io.kcdelta.schema.JsonText;
import java.util.ArrayList;
import java.util.List;

/**
 * Stats of a struct's fields, rendered as a nested JSON object; a null struct makes all its leaves
 * null.
 */
final class StructStats extends ColumnStats {
  private final List<String> names = new ArrayList<>();
  private final List<ColumnStats> children = new ArrayList<>();

  void add(String name, ColumnStats child) {
    names.add(name);
    children.add(child);
  }

  boolean isEmpty() {
    return children.isEmpty();
  }

  @Override
  void addNull() {
    for (int i = 0; i < children.size(); i++) {
      children.get(i).addNull();
    }
  }

  @Override
  boolean appendMin(StringBuilder out) {
    return appendObject(out, Kind.MIN);
  }

  @Override
  boolean appendMax(StringBuilder out) {
    return appendObject(out, Kind.MAX);
  }

  @Override
  boolean appendNullCount(StringBuilder out) {
    return appendObject(out, Kind.NULL_COUNT);
  }

  private enum Kind {
    MIN,
    MAX,
    NULL_COUNT
  }

  /**
   * Renders {"name":value,...}, leaving out children without a value; false (and nothing) if none
   * has one.
   */
  private boolean appendObject(StringBuilder out, Kind kind) {
    int start = out.length();
    out.append('{');
    boolean any = false;
    for (int i = 0; i < children.size(); i++) {
      int mark = out.length();
      if (any) {
        out.append(',');
      }
      JsonText.appendString(out, names.get(i));
      out.append(':');
      ColumnStats child = children.get(i);
      boolean wrote =
          switch (kind) {
            case MIN -> child.appendMin(out);
            case MAX -> child.appendMax(out);
            case NULL_COUNT -> child.appendNullCount(out);
          };
      if (wrote) {
        any = true;
      } else {
        out.setLength(mark);
      }
    }
    if (!any) {
      out.setLength(start);
      return false;
    }
    out.append('}');
    return true;
  }

  /**
   * The file's stats object: {"numRecords":N,"minValues":{..},"maxValues":{..},"nullCount":{..}}.
   */
  String toJson(long numRecords) {
    StringBuilder out = new StringBuilder(256);
    out.append("{\"numRecords\":").append(numRecords);
    out.append(",\"minValues\":");
    section(out, Kind.MIN);
    out.append(",\"maxValues\":");
    section(out, Kind.MAX);
    out.append(",\"nullCount\":");
    section(out, Kind.NULL_COUNT);
    return out.append('}').toString();
  }

  private void section(StringBuilder out, Kind kind) {
    if (!appendObject(out, kind)) {
      out.append("{}");
    }
  }
}
