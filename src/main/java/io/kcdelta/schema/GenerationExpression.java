package io.kcdelta.schema;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Schema;

/**
 * The generated-column expressions the connector computes: the forms Spark users partition by (and
 * Delta prunes partitions on), evaluated as Spark does with the session time zone UTC. A column's
 * expression is Spark SQL text in its field metadata ({@value #METADATA_KEY}); anything else {@link
 * #parse} returns null for, and the table is refused naming the column.
 *
 * <ul>
 *   <li>{@code CAST(ts AS DATE)}: the UTC date of a timestamp (or the date itself);
 *   <li>{@code YEAR(ts)}, {@code MONTH(ts)}, {@code DAY(ts)} / {@code DAYOFMONTH(ts)}, {@code
 *       HOUR(ts)}: the UTC field, an integer;
 *   <li>{@code DATE_FORMAT(ts, 'yyyy-MM-dd-HH')}: patterns of {@code yyyy}, {@code MM}, {@code dd},
 *       {@code HH} and the separators {@code - _ / . : } and space;
 *   <li>{@code SUBSTRING(s, pos, len)} / {@code SUBSTR}: {@code len} characters from {@code pos}
 *       (1-based, 0 counts as 1);
 *   <li>{@code n - PMOD(n, w)}: an integer truncated down to a multiple of {@code w}.
 * </ul>
 */
public final class GenerationExpression {
  public static final String METADATA_KEY = "delta.generationExpression";

  private static final long MILLIS_PER_DAY = 86_400_000L;
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern DATE_PATTERN = Pattern.compile("(yyyy|MM|dd|HH|[-_/.: ])+");

  enum Kind {
    CAST_DATE,
    YEAR,
    MONTH,
    DAY,
    HOUR,
    DATE_FORMAT,
    SUBSTRING,
    TRUNCATE
  }

  private final Kind kind;
  private final String source;
  private final String pattern;
  private final int position;
  private final long width;
  private final DateTimeFormatter formatter;

  private GenerationExpression(Kind kind, String source, String pattern, int position, long width) {
    this.kind = kind;
    this.source = source;
    this.pattern = pattern;
    this.position = position;
    this.width = width;
    this.formatter = pattern == null ? null : DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
  }

  /** The top-level column the expression reads. */
  public String source() {
    return source;
  }

  // ------------------------------------------------------------------ config forms

  /**
   * A partition transform of the connector's config: {@code year(f)}, {@code month(f)} ({@code
   * DATE_FORMAT(f, 'yyyy-MM')}), {@code day(f)} ({@code CAST(f AS DATE)}), {@code hour(f)} ({@code
   * DATE_FORMAT(f, 'yyyy-MM-dd-HH')}) or {@code truncate(f, w)} ({@code SUBSTRING(f, 1, w)} of a
   * string, {@code f - PMOD(f, w)} of an integer: which, the field's type decides).
   *
   * @param sourceIsString for truncate: whether the field is a string
   * @return null when {@code transform} is not one of these
   */
  public static GenerationExpression ofTransform(Transform transform, boolean sourceIsString) {
    return switch (transform.name()) {
      case "year" -> new GenerationExpression(Kind.YEAR, transform.field(), null, 0, 0);
      case "month" ->
          new GenerationExpression(Kind.DATE_FORMAT, transform.field(), "yyyy-MM", 0, 0);
      case "day" -> new GenerationExpression(Kind.CAST_DATE, transform.field(), null, 0, 0);
      case "hour" ->
          new GenerationExpression(Kind.DATE_FORMAT, transform.field(), "yyyy-MM-dd-HH", 0, 0);
      case "truncate" ->
          sourceIsString
              ? new GenerationExpression(
                  Kind.SUBSTRING, transform.field(), null, 1, transform.width())
              : new GenerationExpression(
                  Kind.TRUNCATE, transform.field(), null, 0, transform.width());
      default -> null;
    };
  }

  /**
   * A partition column of the config that derives from a field: {@code [column=]transform(field[,
   * width])}.
   *
   * @param column the partition column's name (default {@code <field>_<transform>})
   * @param width truncate's width, else 0
   */
  public record Transform(String column, String name, String field, long width) {
    public static final List<String> NAMES = List.of("year", "month", "day", "hour", "truncate");

    private static final Pattern FORM =
        Pattern.compile(
            "\\s*(?:([A-Za-z0-9_-]+)\\s*=\\s*)?([A-Za-z]+)\\s*\\(\\s*([A-Za-z0-9_-]+)\\s*"
                + "(?:,\\s*(\\d{1,9})\\s*)?\\)\\s*");

    /**
     * @return null when {@code spec} is a plain column name
     * @throws IllegalArgumentException when it looks like a transform but is not a valid one
     */
    public static Transform parse(String spec) {
      if (!spec.contains("(")) {
        return null;
      }
      var m = FORM.matcher(spec);
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "'"
                + spec
                + "' is not a partition transform: write e.g. day(event_time), "
                + "event_date=day(event_time) or truncate(sku, 4)");
      }
      String name = m.group(2).toLowerCase(Locale.ROOT);
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException(
            "'" + spec + "': unknown transform '" + m.group(2) + "'; known: " + NAMES);
      }
      boolean truncate = name.equals("truncate");
      if (truncate != (m.group(4) != null)) {
        throw new IllegalArgumentException(
            truncate
                ? "'" + spec + "': truncate needs a width, e.g. truncate(" + m.group(3) + ", 4)"
                : "'" + spec + "': " + name + " takes one field");
      }
      long width = truncate ? Long.parseLong(m.group(4)) : 0;
      if (truncate && width < 1) {
        throw new IllegalArgumentException("'" + spec + "': the width must be at least 1");
      }
      String field = m.group(3);
      String column = m.group(1) != null ? m.group(1) : field + "_" + (truncate ? "trunc" : name);
      return new Transform(column, name, field, width);
    }
  }

  // ------------------------------------------------------------------ Spark SQL text

  /** The expression as Spark SQL text, as stored in the column's metadata. */
  public String sql() {
    String col = quote(source);
    return switch (kind) {
      case CAST_DATE -> "CAST(" + col + " AS DATE)";
      case YEAR -> "YEAR(" + col + ")";
      case MONTH -> "MONTH(" + col + ")";
      case DAY -> "DAY(" + col + ")";
      case HOUR -> "HOUR(" + col + ")";
      case DATE_FORMAT -> "DATE_FORMAT(" + col + ", '" + pattern + "')";
      case SUBSTRING -> "SUBSTRING(" + col + ", " + position + ", " + width + ")";
      case TRUNCATE -> col + " - PMOD(" + col + ", " + width + ")";
    };
  }

  private static String quote(String column) {
    return IDENTIFIER.matcher(column).matches() ? column : "`" + column.replace("`", "``") + "`";
  }

  /** The expression of that Spark SQL text, or null if it is not one the connector computes. */
  public static GenerationExpression parse(String sql) {
    if (sql == null) {
      return null;
    }
    List<String> t;
    try {
      t = tokens(sql);
    } catch (IllegalArgumentException e) {
      return null;
    }
    // col - PMOD(col, w)
    if (t.size() == 8
        && isColumn(t.get(0))
        && t.get(1).equals("-")
        && t.get(2).equalsIgnoreCase("PMOD")
        && t.get(3).equals("(")
        && isColumn(t.get(4))
        && column(t.get(4)).equals(column(t.get(0)))
        && t.get(5).equals(",")
        && isNumber(t.get(6))
        && t.get(7).equals(")")) {
      long w = Long.parseLong(t.get(6));
      return w < 1 ? null : new GenerationExpression(Kind.TRUNCATE, column(t.get(0)), null, 0, w);
    }
    if (t.size() < 4 || !t.get(1).equals("(") || !t.get(t.size() - 1).equals(")")) {
      return null;
    }
    String fn = t.get(0).toUpperCase(Locale.ROOT);
    List<String> args = t.subList(2, t.size() - 1);
    switch (fn) {
      case "CAST":
        if (args.size() == 3
            && isColumn(args.get(0))
            && args.get(1).equalsIgnoreCase("AS")
            && args.get(2).equalsIgnoreCase("DATE")) {
          return new GenerationExpression(Kind.CAST_DATE, column(args.get(0)), null, 0, 0);
        }
        return null;
      case "YEAR", "MONTH", "DAY", "DAYOFMONTH", "HOUR":
        if (args.size() == 1 && isColumn(args.get(0))) {
          Kind k = fn.equals("DAYOFMONTH") ? Kind.DAY : Kind.valueOf(fn);
          return new GenerationExpression(k, column(args.get(0)), null, 0, 0);
        }
        return null;
      case "DATE_FORMAT":
        if (args.size() == 3
            && isColumn(args.get(0))
            && args.get(1).equals(",")
            && args.get(2).startsWith("'")) {
          String p = args.get(2).substring(1, args.get(2).length() - 1);
          return DATE_PATTERN.matcher(p).matches()
              ? new GenerationExpression(Kind.DATE_FORMAT, column(args.get(0)), p, 0, 0)
              : null;
        }
        return null;
      case "SUBSTRING", "SUBSTR":
        if (args.size() == 5
            && isColumn(args.get(0))
            && args.get(1).equals(",")
            && isNumber(args.get(2))
            && args.get(3).equals(",")
            && isNumber(args.get(4))) {
          long pos = Long.parseLong(args.get(2));
          long len = Long.parseLong(args.get(4));
          return pos > Integer.MAX_VALUE || len < 1
              ? null
              : new GenerationExpression(Kind.SUBSTRING, column(args.get(0)), null, (int) pos, len);
        }
        return null;
      default:
        return null;
    }
  }

  /**
   * Identifiers (a backquoted one keeps its quotes), numbers, 'strings', and the symbols {@code ( )
   * , -}.
   */
  private static List<String> tokens(String sql) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '(' || c == ')' || c == ',' || c == '-') {
        out.add(String.valueOf(c));
        i++;
      } else if (c == '`' || c == '\'') {
        StringBuilder b = new StringBuilder().append(c);
        int j = i + 1;
        while (true) {
          if (j >= sql.length()) {
            throw new IllegalArgumentException("unterminated quote");
          }
          char d = sql.charAt(j);
          if (d == c) {
            if (j + 1 < sql.length() && sql.charAt(j + 1) == c) {
              b.append(c);
              j += 2;
              continue;
            }
            break;
          }
          b.append(d);
          j++;
        }
        out.add(b.append(c).toString());
        i = j + 1;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int j = i;
        while (j < sql.length()
            && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
          j++;
        }
        out.add(sql.substring(i, j));
        i = j;
      } else {
        throw new IllegalArgumentException("unexpected '" + c + "'");
      }
    }
    return out;
  }

  private static boolean isColumn(String token) {
    return token.startsWith("`") || IDENTIFIER.matcher(token).matches();
  }

  private static String column(String token) {
    return token.startsWith("`") ? token.substring(1, token.length() - 1) : token;
  }

  private static boolean isNumber(String token) {
    return token.matches("\\d{1,18}");
  }

  // ------------------------------------------------------------------ types and values

  /**
   * The column's type for a source column of this type, or null when the expression cannot read
   * such a column.
   */
  public DeltaType resultType(DeltaType sourceType) {
    boolean temporal =
        sourceType == PrimitiveType.TIMESTAMP
            || sourceType == PrimitiveType.TIMESTAMP_NTZ
            || sourceType == PrimitiveType.DATE;
    return switch (kind) {
      case CAST_DATE -> temporal ? PrimitiveType.DATE : null;
      case YEAR, MONTH, DAY, HOUR -> temporal ? PrimitiveType.INTEGER : null;
      case DATE_FORMAT -> temporal ? PrimitiveType.STRING : null;
      case SUBSTRING -> sourceType == PrimitiveType.STRING ? PrimitiveType.STRING : null;
      case TRUNCATE ->
          sourceType == PrimitiveType.BYTE
                  || sourceType == PrimitiveType.SHORT
                  || sourceType == PrimitiveType.INTEGER
                  || sourceType == PrimitiveType.LONG
              ? sourceType
              : null;
    };
  }

  /**
   * Whether a record field of this Connect schema can be the source: a Timestamp or Date for the
   * time forms, a string for SUBSTRING, an integer for the truncation.
   */
  public boolean accepts(Schema fieldSchema) {
    ConnectTypes t = ConnectTypes.of(fieldSchema);
    return switch (kind) {
      case CAST_DATE, YEAR, MONTH, DAY, HOUR, DATE_FORMAT ->
          t == ConnectTypes.TIMESTAMP || t == ConnectTypes.DATE;
      case SUBSTRING -> t == ConnectTypes.STRING;
      case TRUNCATE ->
          t == ConnectTypes.INT8
              || t == ConnectTypes.INT16
              || t == ConnectTypes.INT32
              || t == ConnectTypes.INT64;
    };
  }

  /**
   * The partition value (Delta's serialized form) of a source value the field's schema {@link
   * #accepts}; null for null.
   */
  public String partitionValue(Object value) {
    if (value == null) {
      return null;
    }
    switch (kind) {
      case SUBSTRING:
        return substring((String) value);
      case TRUNCATE:
        {
          long v = ((Number) value).longValue();
          return Long.toString(v - Math.floorMod(v, width));
        }
      default:
        break;
    }
    long millis = ((java.util.Date) value).getTime();
    LocalDateTime t =
        LocalDateTime.ofEpochSecond(
            Math.floorDiv(millis, 1000),
            (int) Math.floorMod(millis, 1000) * 1_000_000,
            ZoneOffset.UTC);
    return switch (kind) {
      case CAST_DATE -> t.toLocalDate().toString();
      case YEAR -> Integer.toString(t.getYear());
      case MONTH -> Integer.toString(t.getMonthValue());
      case DAY -> Integer.toString(t.getDayOfMonth());
      case HOUR -> Integer.toString(t.getHour());
      case DATE_FORMAT -> formatter.format(t);
      default -> throw new IllegalStateException(kind.name());
    };
  }

  /** Spark's substring on characters (code points): from {@code position}, {@code width} long. */
  private String substring(String s) {
    int chars = s.codePointCount(0, s.length());
    int start = position > 0 ? position - 1 : 0;
    long end = Math.min(chars, start + width);
    if (start >= end) {
      return "";
    }
    int from = s.offsetByCodePoints(0, start);
    int to = s.offsetByCodePoints(from, (int) (end - start));
    return s.substring(from, to);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GenerationExpression g && g.sql().equals(sql());
  }

  @Override
  public int hashCode() {
    return Objects.hash(sql());
  }

  @Override
  public String toString() {
    return sql();
  }
}
