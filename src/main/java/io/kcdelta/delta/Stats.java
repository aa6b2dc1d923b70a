package io.kcdelta.delta;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the layer reads of a file's JSON stats. */
final class Stats {
  private static final Pattern NUM_RECORDS = Pattern.compile("\"numRecords\"\\s*:\\s*(\\d+)");

  private Stats() {}

  /** The stats' numRecords (-1: no stats, or none in them). */
  static long numRecords(String stats) {
    if (stats == null) {
      return -1;
    }
    Matcher m = NUM_RECORDS.matcher(stats);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
