package io.kcdelta.table;

/**
 * Directory names of partition values, escaped the way Hive and Spark do, so any reader finds them.
 */
final class PartitionPaths {
  /** Spark writes null partition values into this directory name. */
  static final String NULL_DIRECTORY = "__HIVE_DEFAULT_PARTITION__";

  private PartitionPaths() {}

  static String escape(String value) {
    if (value == null) {
      return NULL_DIRECTORY;
    }
    if (value.isEmpty()) {
      return NULL_DIRECTORY;
    }
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (needsEscape(c)) {
        out.append('%').append(String.format("%02X", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || c == 0x7F || "\"#%'*/:=?\\{[]^".indexOf(c) >= 0;
  }
}
