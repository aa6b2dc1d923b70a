package io.kcdelta.parquet;

import io.kcdelta.schema.DecimalType;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.JsonText;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Delta stats of a file holding exactly the rows of some files, from their stats: numRecords
 * and nullCount add up, min and max are the least and greatest of the files' bounds.
 *
 * <p>Why from the stats and not the rows: a bound taken over the files' bounds is the bound of all
 * their rows (a file's min is at most each of its values; truncated string bounds stay bounds), at
 * no cost. A column whose bound or count any file lacks gets none (unknown stays unknown); without
 * numRecords in every file there are no stats.
 */
public final class StatsMerge {
  private static final String NUM_RECORDS = "numRecords";
  private static final String MIN = "minValues";
  private static final String MAX = "maxValues";
  private static final String NULL_COUNT = "nullCount";

  private StatsMerge() {}

  /**
   * @param stats each file's stats JSON text (null: the file has none)
   * @param dataSchema the files' columns (the table's, partition columns left out)
   * @return the merged stats JSON text, or null when a file has none
   */
  public static String merge(List<String> stats, StructType dataSchema) {
    return merge(stats, dataSchema, 0);
  }

  /**
   * The stats of a file holding the rows of some files except the {@code deletedRows} their
   * deletion vectors delete. The files' bounds still bound the rows kept, but a deleted row may
   * have held one, so the bounds are then wide ({@code tightBounds} false), as they are when any
   * file's are. A null count survives wide bounds only where it is still exact: 0 in every file (no
   * row kept is null), or every row of every file (all are).
   *
   * @return the stats JSON text, or null when a file has none
   */
  public static String merge(List<String> stats, StructType dataSchema, long deletedRows) {
    List<Map<?, ?>> files = new ArrayList<>();
    long numRecords = 0;
    for (String text : stats) {
      if (text == null
          || text.isBlank()
          || !(JsonParser.parse(text) instanceof Map<?, ?> file)
          || !(file.get(NUM_RECORDS) instanceof Number n)) {
        return null;
      }
      files.add(file);
      numRecords += n.longValue();
    }
    long[] rows =
        files.stream().mapToLong(f -> ((Number) f.get(NUM_RECORDS)).longValue()).toArray();
    List<Map<?, ?>> nullCounts = children(files, NULL_COUNT);
    Map<String, Object> min = bounds(children(files, MIN), nullCounts, rows, dataSchema, -1);
    Map<String, Object> max = bounds(children(files, MAX), nullCounts, rows, dataSchema, 1);
    Map<String, Object> nulls = nullCounts(nullCounts, dataSchema);
    long keptRows = numRecords - deletedRows;
    StringBuilder out = new StringBuilder("{\"numRecords\":").append(keptRows);
    if (deletedRows > 0
        || files.stream().anyMatch(f -> Boolean.FALSE.equals(f.get("tightBounds")))) {
      out.append(",\"tightBounds\":false");
      nulls = exactAfterDeletes(nulls, numRecords, keptRows);
    }
    out.append(",\"minValues\":");
    JsonText.append(out, min);
    out.append(",\"maxValues\":");
    JsonText.append(out, max);
    out.append(",\"nullCount\":");
    JsonText.append(out, nulls);
    return out.append('}').toString();
  }

  /** Each object's member {@code key} (null where an object is null or has no such object). */
  private static List<Map<?, ?>> children(List<Map<?, ?>> objects, String key) {
    List<Map<?, ?>> out = new ArrayList<>();
    for (Map<?, ?> o : objects) {
      out.add(o != null && o.get(key) instanceof Map<?, ?> child ? child : null);
    }
    return out;
  }

  /**
   * The least ({@code sign} -1) or greatest (1) bound of each column. A file without a bound for a
   * column adds nothing to it when its nullCount says every row is null there (there was nothing to
   * bound); otherwise the bound is unknown.
   */
  private static Map<String, Object> bounds(
      List<Map<?, ?>> files, List<Map<?, ?>> nulls, long[] rows, StructType schema, int sign) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (StructField field : schema.fields()) {
      String name = field.name();
      DeltaType type = field.type();
      if (type instanceof StructType nested) {
        Map<String, Object> inner =
            bounds(children(files, name), children(nulls, name), rows, nested, sign);
        if (!inner.isEmpty()) {
          out.put(name, inner);
        }
        continue;
      }
      Comparator<Object> order = order(type);
      Object best = null;
      for (int i = 0; i < files.size() && order != null; i++) {
        Object v = files.get(i) == null ? null : files.get(i).get(name);
        if (v == null && allNull(nulls.get(i), name, rows[i])) {
          continue;
        }
        if (v == null || v instanceof Map || v instanceof List) {
          best = null;
          break;
        }
        try {
          if (best == null || sign * order.compare(v, best) > 0) {
            best = v;
          }
        } catch (RuntimeException unreadable) {
          // A bound some other writer rendered in a form we do not read: unknown.
          best = null;
          break;
        }
      }
      if (best != null) {
        out.put(name, best);
      }
    }
    return out;
  }

  private static boolean allNull(Map<?, ?> nulls, String column, long rows) {
    return nulls != null && nulls.get(column) instanceof Number n && n.longValue() == rows;
  }

  private static Map<String, Object> nullCounts(List<Map<?, ?>> files, StructType schema) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (StructField field : schema.fields()) {
      if (field.type() instanceof StructType nested) {
        Map<String, Object> inner = nullCounts(children(files, field.name()), nested);
        if (!inner.isEmpty()) {
          out.put(field.name(), inner);
        }
        continue;
      }
      long sum = 0;
      boolean known = true;
      for (Map<?, ?> file : files) {
        if (file != null && file.get(field.name()) instanceof Number n) {
          sum += n.longValue();
        } else {
          known = false;
          break;
        }
      }
      if (known) {
        out.put(field.name(), sum);
      }
    }
    return out;
  }

  /** The null counts of {@code rows} rows still exact once only {@code keptRows} of them are. */
  private static Map<String, Object> exactAfterDeletes(
      Map<String, Object> nulls, long rows, long keptRows) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : nulls.entrySet()) {
      if (e.getValue() instanceof Map<?, ?> nested) {
        @SuppressWarnings("unchecked")
        Map<String, Object> inner = exactAfterDeletes((Map<String, Object>) nested, rows, keptRows);
        if (!inner.isEmpty()) {
          out.put(e.getKey(), inner);
        }
      } else if (e.getValue() instanceof Long n && (n == 0 || n == rows)) {
        out.put(e.getKey(), n == 0 ? 0L : keptRows);
      }
    }
    return out;
  }

  /** How bounds of a column of this type compare (null: we keep no bounds for it). */
  private static Comparator<Object> order(DeltaType type) {
    if (type instanceof DecimalType) {
      return Comparator.comparing(StatsMerge::number);
    }
    if (!(type instanceof PrimitiveType primitive)) {
      return null;
    }
    return switch (primitive) {
      case BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE -> Comparator.comparing(StatsMerge::number);
      case STRING -> (a, b) -> StringPrefixes.compareCodePoints((String) a, (String) b);
      case DATE -> Comparator.comparing(v -> LocalDate.parse((String) v));
      case TIMESTAMP ->
          Comparator.comparing(
              v -> DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse((String) v, Instant::from));
      default -> null;
    };
  }

  private static BigDecimal number(Object v) {
    if (v instanceof BigDecimal d) {
      return d;
    }
    if (v instanceof BigInteger i) {
      return new BigDecimal(i);
    }
    if (v instanceof Long l) {
      return BigDecimal.valueOf(l);
    }
    throw new IllegalArgumentException("not a number: " + v);
  }
}
