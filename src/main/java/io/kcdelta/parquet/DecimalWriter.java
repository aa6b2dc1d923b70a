package io.kcdelta.parquet;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.kafka.connect.errors.DataException;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Decimals as INT32 (p ≤ 9), INT64 (p ≤ 18) or big-endian two's complement of a fixed length.
 * Values are never rescaled: rounding would change data silently, so a wrong scale is the
 * producer's error.
 */
final class DecimalWriter implements ValueWriter {
  private final String column;
  private final int precision;
  private final int scale;

  /** 0 for INT32/INT64 storage, else the FIXED_LEN_BYTE_ARRAY length. */
  private final int fixedLength;

  private final DecimalStats stats;

  DecimalWriter(String column, int precision, int scale, int fixedLength, DecimalStats stats) {
    this.column = column;
    this.precision = precision;
    this.scale = scale;
    this.fixedLength = fixedLength;
    this.stats = stats;
  }

  @Override
  public void check(Object value) {
    if (!(value instanceof BigDecimal)) {
      throw ValueErrors.wrongClass(column, "BigDecimal", value);
    }
    BigDecimal v = (BigDecimal) value;
    if (v.scale() != scale) {
      throw new DataException(
          "Column '"
              + column
              + "' is decimal("
              + precision
              + ","
              + scale
              + ") but the value "
              + v.toPlainString()
              + " has scale "
              + v.scale()
              + "; the record's Decimal schema and its values disagree");
    }
    if (v.precision() > precision) {
      throw new DataException(
          "Column '"
              + column
              + "' is decimal("
              + precision
              + ","
              + scale
              + ") but the value "
              + v.toPlainString()
              + " has "
              + v.precision()
              + " digits");
    }
  }

  @Override
  public void write(RecordConsumer out, Object value) {
    BigDecimal v = (BigDecimal) value;
    BigInteger unscaled = v.unscaledValue();
    if (precision <= 9) {
      out.addInteger(unscaled.intValue());
    } else if (precision <= 18) {
      out.addLong(unscaled.longValue());
    } else {
      out.addBinary(Binary.fromConstantByteArray(fixedBytes(unscaled)));
    }
    if (stats != null) {
      stats.add(v);
    }
  }

  private byte[] fixedBytes(BigInteger unscaled) {
    byte[] minimal = unscaled.toByteArray();
    if (minimal.length == fixedLength) {
      return minimal;
    }
    byte[] padded = new byte[fixedLength];
    byte sign = (byte) (unscaled.signum() < 0 ? -1 : 0);
    int pad = fixedLength - minimal.length;
    for (int i = 0; i < pad; i++) {
      padded[i] = sign;
    }
    System.arraycopy(minimal, 0, padded, pad, minimal.length);
    return padded;
  }
}
