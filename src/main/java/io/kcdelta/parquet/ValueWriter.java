package io.kcdelta.parquet;

import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes one Connect value of a known schema. Built once per schema, so writing does no schema
 * lookups. A record is fully checked before its first value is written: Parquet cannot take back
 * half a record, and a rejected record (sent to a dead letter queue) must not damage the file.
 */
interface ValueWriter {

  /**
   * @throws org.apache.kafka.connect.errors.DataException if {@link #write} would fail for this
   *     non-null value
   */
  void check(Object value);

  /** Writes a non-null value that passed {@link #check}; updates the column's stats. */
  void write(RecordConsumer out, Object value);
}
