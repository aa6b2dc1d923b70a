package io.kcdelta.schema;

import java.math.BigDecimal;
import java.util.Map;

/**
 * JSON text of values as {@link JsonParser} reads them (maps, lists, strings, numbers, booleans,
 * null): the column stats, the Delta log's actions and schemas. Our own writer, as the parser is
 * our own: the plugin's code depends on no JSON library.
 */
public final class JsonText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonText() {}

  /**
   * {@code value} as JSON text: a {@link Map} (keys as strings, in its order), an {@link Iterable},
   * a String, a Number, a Boolean or null.
   */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder(64);
    append(out, value);
    return out.toString();
  }

  /** Appends {@code value} as JSON text (see {@link #write}). */
  public static void append(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      appendString(out, s);
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Number n) {
      appendNumber(out, n);
    } else if (value instanceof Map<?, ?> m) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        out.append(first ? "" : ",");
        first = false;
        appendString(out, String.valueOf(e.getKey()));
        out.append(':');
        append(out, e.getValue());
      }
      out.append('}');
    } else if (value instanceof Iterable<?> list) {
      out.append('[');
      boolean first = true;
      for (Object v : list) {
        out.append(first ? "" : ",");
        first = false;
        append(out, v);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
    }
  }

  private static void appendNumber(StringBuilder out, Number n) {
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("JSON has no " + d);
      }
    } else if (n instanceof BigDecimal b) {
      out.append(b.toString());
      return;
    }
    out.append(n);
  }

  /** {@code s} as a JSON string literal. */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    appendString(out, s);
    return out.toString();
  }

  public static void appendString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        default:
          // Lone surrogates are escaped too, so the text stays valid whatever encodes it later.
          if (c < 0x20 || Character.isSurrogate(c) && !isPairAt(s, i)) {
            out.append("\\u")
                .append(HEX[c >> 12 & 0xF])
                .append(HEX[c >> 8 & 0xF])
                .append(HEX[c >> 4 & 0xF])
                .append(HEX[c & 0xF]);
          } else if (Character.isHighSurrogate(c)) {
            out.append(c).append(s.charAt(++i));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static boolean isPairAt(String s, int i) {
    return Character.isHighSurrogate(s.charAt(i))
        && i + 1 < s.length()
        && Character.isLowSurrogate(s.charAt(i + 1));
  }
}
