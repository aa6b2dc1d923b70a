package io.kcdelta.parquet;

import java.io.Closeable;
import java.io.IOException;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes Connect Structs of one schema into one Parquet file and collects Delta stats on the way.
 * STUB: the real implementation is being written in the parquet package.
 */
public final class ParquetFileWriter implements Closeable {

  /**
   * @param excludedFields top-level fields left out of the file (Delta partition columns live in the path)
   */
  public ParquetFileWriter(Configuration conf, Path file, Schema valueSchema, Set<String> excludedFields,
      CompressionCodecName codec) throws IOException {
    throw new UnsupportedOperationException("stub");
  }

  public void write(Struct value) throws IOException {
    throw new UnsupportedOperationException("stub");
  }

  /** Bytes written plus buffered so far: what the file will be about once finished. */
  public long dataSize() {
    throw new UnsupportedOperationException("stub");
  }

  public long numRecords() {
    throw new UnsupportedOperationException("stub");
  }

  /** Closes (uploads) the file and describes it. */
  public DataFile finish() throws IOException {
    throw new UnsupportedOperationException("stub");
  }

  /** Closes without finishing and deletes the file, best effort. */
  public void abort() {
    throw new UnsupportedOperationException("stub");
  }

  @Override
  public void close() {
    abort();
  }
}
