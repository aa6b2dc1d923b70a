package io.kcdelta.parquet;

/**
 * Delta's rule for string stats: keep a prefix of {@link #PREFIX_LENGTH} chars, and for the max
 * append a tie-breaker so that the kept max is still greater than or equal to every value in UTF-8
 * byte order (which is code point order, the order Delta readers compare in).
 */
final class StringPrefixes {
  static final int PREFIX_LENGTH = 32;
  private static final char ASCII_MAX = '\u007F';
  private static final String MAX_CODE_POINT =
      new String(Character.toChars(Character.MAX_CODE_POINT));

  /** How far the max may grow past the prefix while looking for a place for the tie-breaker. */
  private static final int MAX_EXPANSION = 2 * PREFIX_LENGTH;

  private StringPrefixes() {}

  /** A prefix is ≤ the string, so it is a valid min; never ends in half a surrogate pair. */
  static String truncateMin(String min) {
    if (min.length() <= PREFIX_LENGTH) {
      return min;
    }
    return min.substring(0, pairSafeEnd(min, PREFIX_LENGTH));
  }

  /**
   * @return a short string ≥ {@code max}, or null when none fits (then the max is better left out)
   */
  static String truncateMax(String max) {
    if (max.length() <= PREFIX_LENGTH) {
      return max;
    }
    int end = pairSafeEnd(max, PREFIX_LENGTH);
    while (end <= MAX_EXPANSION) {
      if (end >= max.length()) {
        return max;
      }
      if (max.startsWith(MAX_CODE_POINT, end)) {
        // Nothing sorts above U+10FFFF, so it cannot be the position that the tie-breaker wins at.
        end += MAX_CODE_POINT.length();
      } else if (max.charAt(end) < ASCII_MAX) {
        return max.substring(0, end) + ASCII_MAX;
      } else {
        return max.substring(0, end) + MAX_CODE_POINT;
      }
    }
    return null;
  }

  private static int pairSafeEnd(String s, int end) {
    return Character.isHighSurrogate(s.charAt(end - 1)) && Character.isLowSurrogate(s.charAt(end))
        ? end + 1
        : end;
  }

  /**
   * Compares in code point order (= UTF-8 byte order). {@link String#compareTo} compares UTF-16
   * units, which puts U+E000..U+FFFF after supplementary characters.
   */
  static int compareCodePoints(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        return fixup(x) - fixup(y);
      }
    }
    return a.length() - b.length();
  }

  /**
   * Moves surrogates above U+E000..U+FFFF, which makes UTF-16 unit order equal code point order.
   */
  private static int fixup(char c) {
    if (c >= 0xE000) {
      return c - 0x800;
    }
    if (c >= 0xD800) {
      return c + 0x2000;
    }
    return c;
  }
}
