package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StringPrefixesTest {
  private static final String A32 = "a".repeat(32);
  private static final String MAX_CP = new String(Character.toChars(0x10FFFF));

  private static int utf8Compare(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shortStringsAreKept() {
    assertEquals(A32, StringPrefixes.truncateMin(A32));
    assertEquals(A32, StringPrefixes.truncateMax(A32));
    assertEquals("", StringPrefixes.truncateMax(""));
  }

  @Test
  void minIsThePrefix() {
    assertEquals(A32, StringPrefixes.truncateMin(A32 + "zzz"));
  }

  @Test
  void maxGetsATieBreakerAboveTheCutCharacter() {
    assertEquals(A32 + '\u007F', StringPrefixes.truncateMax(A32 + "zzz"));
    assertEquals(A32 + MAX_CP, StringPrefixes.truncateMax(A32 + "é"));
    assertEquals(A32 + MAX_CP, StringPrefixes.truncateMax(A32 + "\u007F"));
    // U+10FFFF cannot be beaten, so the prefix grows past it
    assertEquals(A32 + MAX_CP + '\u007F', StringPrefixes.truncateMax(A32 + MAX_CP + "b"));
  }

  @Test
  void surrogatePairsAreNotSplit() {
    String s = "a".repeat(31) + "😀" + "tail";
    assertEquals("a".repeat(31) + "😀", StringPrefixes.truncateMin(s));
    assertEquals("a".repeat(31) + "😀" + '\u007F', StringPrefixes.truncateMax(s));
  }

  @Test
  void maxIsLeftOutWhenNoShortBoundExists() {
    assertNull(StringPrefixes.truncateMax(A32 + MAX_CP.repeat(40)));
  }

  @Test
  void codePointOrderIsUtf8ByteOrder() {
    assertTrue(StringPrefixes.compareCodePoints("\uFFFD", "😀") < 0, "U+FFFD sorts before U+1F600");
    assertTrue("\uFFFD".compareTo("😀") > 0, "whereas UTF-16 order says the opposite");
    Random r = new Random(42);
    int[] pool = {'a', 'z', 0x7F, 0xE9, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0x1F600, 0x10FFFF};
    for (int n = 0; n < 5000; n++) {
      String a = random(r, pool);
      String b = random(r, pool);
      assertEquals(
          Integer.signum(utf8Compare(a, b)),
          Integer.signum(StringPrefixes.compareCodePoints(a, b)),
          a + " vs " + b);
    }
  }

  @Test
  void truncatedBoundsHoldForRandomStrings() {
    Random r = new Random(7);
    int[] pool = {'a', 'b', 0x7E, 0x7F, 0xE9, 0xFFFF, 0x1F600, 0x10FFFF};
    for (int n = 0; n < 5000; n++) {
      String s = random(r, pool) + random(r, pool) + random(r, pool) + random(r, pool);
      String min = StringPrefixes.truncateMin(s);
      String max = StringPrefixes.truncateMax(s);
      assertTrue(utf8Compare(min, s) <= 0, s);
      assertTrue(
          min.length() <= 33 && !Character.isHighSurrogate(min.charAt(min.length() - 1)), min);
      if (max != null) {
        assertTrue(utf8Compare(max, s) >= 0, s + " > " + max);
        assertTrue(max.length() <= 66, max);
      }
    }
  }

  private static String random(Random r, int[] pool) {
    StringBuilder sb = new StringBuilder();
    int len = r.nextInt(20);
    for (int i = 0; i < len; i++) {
      sb.appendCodePoint(pool[r.nextInt(pool.length)]);
    }
    return sb.toString();
  }
}
