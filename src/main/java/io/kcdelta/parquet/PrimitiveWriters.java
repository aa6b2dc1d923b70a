package io.kcdelta.parquet;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/** Writers of Connect primitives and of the Date/Time/Timestamp logical types. */
final class PrimitiveWriters {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private PrimitiveWriters() {}

  /** INT8/INT16/INT32 (Byte/Short/Integer), all stored as Parquet INT32. */
  static final class IntWriter implements ValueWriter {
    private final String column;
    private final Class<?> type;
    private final LongStats stats;

    IntWriter(String column, Class<? extends Number> type, LongStats stats) {
      this.column = column;
      this.type = type;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (value.getClass() != type) {
        throw ValueErrors.wrongClass(column, type.getSimpleName(), value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      int v = ((Number) value).intValue();
      out.addInteger(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  /** INT8/INT16/INT32 into a long column: stored as Parquet INT64. */
  static final class IntAsLongWriter implements ValueWriter {
    private final IntWriter checks;
    private final LongStats stats;

    IntAsLongWriter(String column, Class<? extends Number> type, LongStats stats) {
      this.checks = new IntWriter(column, type, null);
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      checks.check(value);
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      long v = ((Number) value).longValue();
      out.addLong(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  /** INT8/INT16/INT32 into a double column (exact: a double holds every int). */
  static final class IntAsDoubleWriter implements ValueWriter {
    private final IntWriter checks;
    private final DoubleStats stats;

    IntAsDoubleWriter(String column, Class<? extends Number> type, DoubleStats stats) {
      this.checks = new IntWriter(column, type, null);
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      checks.check(value);
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      double v = ((Number) value).doubleValue();
      out.addDouble(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  static final class LongWriter implements ValueWriter {
    private final String column;
    private final LongStats stats;

    LongWriter(String column, LongStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof Long)) {
        throw ValueErrors.wrongClass(column, "Long", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      long v = (Long) value;
      out.addLong(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  static final class FloatWriter implements ValueWriter {
    private final String column;
    private final DoubleStats stats;

    FloatWriter(String column, DoubleStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof Float)) {
        throw ValueErrors.wrongClass(column, "Float", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      float v = (Float) value;
      out.addFloat(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  /** FLOAT32 into a double column. */
  static final class FloatAsDoubleWriter implements ValueWriter {
    private final FloatWriter checks;
    private final DoubleStats stats;

    FloatAsDoubleWriter(String column, DoubleStats stats) {
      this.checks = new FloatWriter(column, null);
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      checks.check(value);
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      double v = (Float) value;
      out.addDouble(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  static final class DoubleWriter implements ValueWriter {
    private final String column;
    private final DoubleStats stats;

    DoubleWriter(String column, DoubleStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof Double)) {
        throw ValueErrors.wrongClass(column, "Double", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      double v = (Double) value;
      out.addDouble(v);
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  static final class BooleanWriter implements ValueWriter {
    private final String column;

    BooleanWriter(String column) {
      this.column = column;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof Boolean)) {
        throw ValueErrors.wrongClass(column, "Boolean", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      out.addBoolean((Boolean) value);
    }
  }

  static final class StringWriter implements ValueWriter {
    private final String column;
    private final StringStats stats;

    StringWriter(String column, StringStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof String)) {
        throw ValueErrors.wrongClass(column, "String", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      String v = (String) value;
      // Array-backed, not Binary.fromString's ByteBuffer-backed value: no ByteBuffer per value, and
      // the
      // dictionary's hashCode/equals and the column statistics compare arrays directly.
      out.addBinary(Binary.fromConstantByteArray(v.getBytes(StandardCharsets.UTF_8)));
      if (stats != null) {
        stats.add(v);
      }
    }
  }

  static final class BytesWriter implements ValueWriter {
    private final String column;

    BytesWriter(String column) {
      this.column = column;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof byte[]) && !(value instanceof ByteBuffer)) {
        throw ValueErrors.wrongClass(column, "byte[] or ByteBuffer", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      // Constant, not reused: dictionary encoding keeps references to values until the page is
      // flushed.
      if (value instanceof byte[]) {
        out.addBinary(Binary.fromConstantByteArray((byte[]) value));
      } else {
        out.addBinary(Binary.fromConstantByteBuffer(((ByteBuffer) value).duplicate()));
      }
    }
  }

  /** Connect Date (midnight UTC) as days since the epoch. */
  static final class DateWriter implements ValueWriter {
    private final String column;
    private final LongStats stats;

    DateWriter(String column, LongStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof java.util.Date)) {
        throw ValueErrors.wrongClass(column, "java.util.Date", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      int days = (int) Math.floorDiv(((java.util.Date) value).getTime(), MILLIS_PER_DAY);
      out.addInteger(days);
      if (stats != null) {
        stats.add(days);
      }
    }
  }

  /** Connect Timestamp (ms) as Parquet micros, the unit Delta and Spark use. */
  static final class TimestampWriter implements ValueWriter {
    private final String column;
    private final LongStats stats;

    TimestampWriter(String column, LongStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof java.util.Date)) {
        throw ValueErrors.wrongClass(column, "java.util.Date", value);
      }
      long millis = ((java.util.Date) value).getTime();
      if (millis > Long.MAX_VALUE / 1000 || millis < Long.MIN_VALUE / 1000) {
        throw new org.apache.kafka.connect.errors.DataException(
            "Column '"
                + column
                + "': timestamp "
                + millis
                + " ms is out of the range of microsecond timestamps");
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      long micros = ((java.util.Date) value).getTime() * 1000L;
      out.addLong(micros);
      if (stats != null) {
        stats.add(micros);
      }
    }
  }

  /** Connect Time as an int of millis of the day (no Parquet TIME annotation: Spark rejects it). */
  static final class TimeWriter implements ValueWriter {
    private final String column;
    private final LongStats stats;

    TimeWriter(String column, LongStats stats) {
      this.column = column;
      this.stats = stats;
    }

    @Override
    public void check(Object value) {
      if (!(value instanceof java.util.Date)) {
        throw ValueErrors.wrongClass(column, "java.util.Date", value);
      }
    }

    @Override
    public void write(RecordConsumer out, Object value) {
      int millisOfDay = (int) Math.floorMod(((java.util.Date) value).getTime(), MILLIS_PER_DAY);
      out.addInteger(millisOfDay);
      if (stats != null) {
        stats.add(millisOfDay);
      }
    }
  }
}
