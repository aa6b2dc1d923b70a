package io.kcdelta.parquet;

/**
 * JSON string literals, for the column stats and for the log fields Delta Standalone writes
 * verbatim; a JSON library would be a dependency for one escaping rule.
 */
public final class JsonText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonText() {}

  /** {@code s} as a JSON string literal. */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    appendString(out, s);
    return out.toString();
  }

  static void appendString(StringBuilder out, String s) {
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
