package io.kcdelta.delta;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the layer reads of a file's JSON stats. */
final class Stats {
  private static final Pattern NUM_RECORDS = Pattern.compile("\"numRecords\"\\s*:\\s*(\\d+)");

  private static final Pattern TIGHT_BOUNDS = Pattern.compile("\"tightBounds\"\\s*:\\s*true");

  private Stats() {}

  /**
   * The stats of a file some of whose rows a deletion vector deletes: the same counts and bounds,
   * said to be wide ({@code tightBounds} false), since a deleted row may have held a bound.
   */
  static String widened(String stats) {
    if (stats == null || stats.isBlank() || stats.contains("\"tightBounds\":false")) {
      return stats;
    }
    Matcher tight = TIGHT_BOUNDS.matcher(stats);
    if (tight.find()) {
      return tight.replaceFirst("\"tightBounds\":false");
    }
    int open = stats.indexOf('{');
    return open < 0
        ? stats
        : stats.substring(0, open + 1)
            + "\"tightBounds\":false"
            + (stats.substring(open + 1).isBlank() || stats.charAt(open + 1) == '}' ? "" : ",")
            + stats.substring(open + 1);
  }

  /** The stats' numRecords (-1: no stats, or none in them). */
  static long numRecords(String stats) {
    if (stats == null) {
      return -1;
    }
    Matcher m = NUM_RECORDS.matcher(stats);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
