package io.kcdelta.parquet;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Parquet's hook into our writer tree: one Connect Struct per Parquet record, stats on the side.
 */
final class StructWriteSupport extends WriteSupport<Struct> {
  private final MessageType schema;
  private final StructWriter root;
  private RecordConsumer out;

  StructWriteSupport(MessageType schema, StructWriter root) {
    this.schema = schema;
    this.root = root;
  }

  @Override
  public String getName() {
    return "kafka-connect-delta";
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(schema, Map.of());
  }

  /** Still abstract in parquet-hadoop 1.15, though Parquet itself calls the variant above. */
  @Override
  @SuppressWarnings("deprecation")
  public WriteContext init(Configuration configuration) {
    return new WriteContext(schema, Map.of());
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.out = recordConsumer;
  }

  /**
   * Must run before {@code ParquetWriter.write}: Parquet marks its writer aborted on any exception
   * from {@link #write} and then closes the file without a footer, so a rejected record would cost
   * the file.
   */
  void check(Struct record) {
    root.check(record);
  }

  /** Writes a record that passed {@link #check}. */
  @Override
  public void write(Struct record) {
    out.startMessage();
    root.writeFields(out, record);
    out.endMessage();
  }
}
