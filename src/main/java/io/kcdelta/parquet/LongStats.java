package io.kcdelta.parquet;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Min/max of integer-backed columns: integers, dates (days) and timestamps (micros). */
final class LongStats extends ColumnStats {
  enum Format {
    NUMBER,
    DATE_DAYS,
    TIMESTAMP_MICROS,
    /** A timestamp_ntz column: local date-time, no zone. */
    TIMESTAMP_NTZ_MICROS
  }

  /** Delta writes timestamp stats with millisecond precision, in UTC. */
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private static final DateTimeFormatter TIMESTAMP_NTZ =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private final Format format;
  private boolean seen;
  private long min;
  private long max;

  LongStats(Format format) {
    this.format = format;
  }

  void add(long v) {
    if (!seen) {
      seen = true;
      min = v;
      max = v;
    } else if (v < min) {
      min = v;
    } else if (v > max) {
      max = v;
    }
  }

  @Override
  boolean appendMin(StringBuilder out) {
    return seen && append(out, min);
  }

  @Override
  boolean appendMax(StringBuilder out) {
    return seen && append(out, max);
  }

  private boolean append(StringBuilder out, long v) {
    switch (format) {
      case DATE_DAYS:
        out.append('"').append(LocalDate.ofEpochDay(v)).append('"');
        break;
      case TIMESTAMP_MICROS:
      case TIMESTAMP_NTZ_MICROS:
        // Floor to ms: exact for Connect timestamps, which are whole milliseconds.
        DateTimeFormatter f = format == Format.TIMESTAMP_MICROS ? TIMESTAMP : TIMESTAMP_NTZ;
        out.append('"').append(f.format(Instant.ofEpochMilli(Math.floorDiv(v, 1000L)))).append('"');
        break;
      default:
        out.append(v);
    }
    return true;
  }
}
