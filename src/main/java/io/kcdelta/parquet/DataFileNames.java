package io.kcdelta.parquet;

import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The names of the data files one connector writes: {@code part-kcd_<connector>-<uuid>.c000.
 * <codec>.parquet}, where {@code <connector>} is the connector's txn appId prefix reduced to
 * letters, digits and '_' (at most 40 characters).
 *
 * <p>Why a name of our own: orphan cleanup deletes only files this connector wrote, and nothing but
 * the name says who wrote a file (Spark's are {@code part-00000-<uuid>.c000...}, which is what this
 * connector wrote before it named its files).
 */
public final class DataFileNames {
  private static final int MAX_TAG = 40;
  private static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

  private final String prefix;
  private final String suffix;
  private final Pattern ours;

  /**
   * @param connector the connector's txn appId prefix
   */
  public DataFileNames(String connector, CompressionCodecName codec) {
    this.prefix = "part-kcd_" + tag(connector) + "-";
    this.suffix =
        ".c000."
            + (codec == CompressionCodecName.UNCOMPRESSED ? "" : codec.name().toLowerCase() + ".")
            + "parquet";
    this.ours =
        Pattern.compile(Pattern.quote(prefix) + UUID_PATTERN + "\\.c000\\.([a-z0-9]+\\.)?parquet");
  }

  /** A new, unique file name. */
  public String next() {
    return prefix + UUID.randomUUID() + suffix;
  }

  /** Whether a file of this name was written by this connector (with any codec). */
  public boolean isOurs(String fileName) {
    return ours.matcher(fileName).matches();
  }

  static String tag(String connector) {
    String tag = connector.replaceAll("[^A-Za-z0-9_]", "_");
    return tag.length() <= MAX_TAG ? tag : tag.substring(0, MAX_TAG);
  }
}
