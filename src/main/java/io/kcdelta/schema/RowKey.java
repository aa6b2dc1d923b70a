package io.kcdelta.schema;

import java.util.List;
import java.util.Objects;

/**
 * The values of a row's key columns (upsert mode), canonical so that a key taken from a Connect
 * record equals the same key read back from a data file: integers of any width as {@link Long},
 * strings as {@link String}.
 */
public final class RowKey {
  private final Object[] values;
  private final int hash;

  /** The key columns' names, when known (a key read from a file has none); not part of equality. */
  private final List<String> columns;

  private RowKey(Object[] values, List<String> columns) {
    this.values = values;
    this.columns = columns;
    int h = 1;
    for (Object v : values) {
      h = 31 * h + v.hashCode();
    }
    this.hash = h;
  }

  /**
   * @param values per key column, an integer (byte, short, int, long) or a string
   * @throws IllegalArgumentException a value is null or of another type
   */
  public static RowKey of(List<?> values) {
    return new RowKey(canonical(values), null);
  }

  private static Object[] canonical(List<?> values) {
    Object[] canonical = new Object[values.size()];
    for (int i = 0; i < canonical.length; i++) {
      canonical[i] = canonical(values.get(i));
    }
    return canonical;
  }

  public static RowKey of(Object... values) {
    return of(List.of(values));
  }

  /** The key of these columns' values. */
  public static RowKey of(List<String> columns, List<?> values) {
    return new RowKey(canonical(values), List.copyOf(columns));
  }

  /** The key columns' names (null when unknown). */
  public List<String> columns() {
    return columns;
  }

  /** A key column's value as keys hold it; throws for a value no key column can hold. */
  public static Object canonical(Object v) {
    if (v instanceof Long || v instanceof String) {
      return v;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    throw new IllegalArgumentException(
        v == null
            ? "a key column is null"
            : "a key column holds a "
                + v.getClass().getSimpleName()
                + " (keys are integers or strings)");
  }

  public int size() {
    return values.length;
  }

  public Object get(int i) {
    return values[i];
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RowKey k) || k.hash != hash || k.values.length != values.length) {
      return false;
    }
    for (int i = 0; i < values.length; i++) {
      if (!Objects.equals(values[i], k.values[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return values.length == 1 ? String.valueOf(values[0]) : List.of(values).toString();
  }
}
