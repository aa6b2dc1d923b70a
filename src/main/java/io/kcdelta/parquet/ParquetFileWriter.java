package io.kcdelta.parquet;

import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.schema.FileColumns;
import java.io.Closeable;
import java.io.IOException;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes Connect Structs of one schema into one Parquet file and collects Delta stats on the way.
 * Not thread-safe: one writer belongs to one task thread.
 */
public final class ParquetFileWriter implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ParquetFileWriter.class);
  private static final int MAX_ROWS_BETWEEN_SIZE_CHECKS = 1_000;

  /**
   * The compressor's output buffer to start with; it grows to a page as pages are compressed.
   * Parquet's default, a page (1 MiB), made every open file take 2.2 MB of heap before its first
   * row: a task writing a few thousand partition values at once ran out of a 2 GB heap.
   */
  private static final int COMPRESSOR_BUFFER_BYTES = 64 << 10;

  /**
   * What an open file holds in memory besides its buffered values, measured with 4 and 40 columns
   * (171 KB and 887 KB with snappy or zstd, 100 KB and 815 KB uncompressed): per file, per leaf
   * column, and the compressor's buffer.
   */
  private static final long RESERVED_PER_FILE = 32 << 10;

  private static final long RESERVED_PER_COLUMN = 20 << 10;

  private final Configuration conf;
  private final Path file;

  private final StructStats stats = new StructStats();
  private final StructWriteSupport writeSupport;
  private final ParquetWriter<Struct> writer;
  private final DictionaryChoices dictionaries;
  private final Set<ColumnPath> plainColumns;
  private final long reservedBytes;
  private long numRecords;

  /** The row count at which {@link #reached} next asks Parquet for the size. */
  private long nextSizeCheck = 1;

  private boolean closed;
  private boolean finished;
  private long closedSize;

  /**
   * @param excludedFields top-level fields left out of the file (Delta partition columns live in
   *     the path)
   */
  public ParquetFileWriter(
      Configuration conf,
      Path file,
      Schema valueSchema,
      Set<String> excludedFields,
      CompressionCodecName codec)
      throws IOException {
    this(conf, file, valueSchema, excludedFields, codec, FileColumns.of(valueSchema));
  }

  /**
   * @param columns the table's columns the file holds: their names and ids in the file, and the
   *     types the record's values are written as
   */
  public ParquetFileWriter(
      Configuration conf,
      Path file,
      Schema valueSchema,
      Set<String> excludedFields,
      CompressionCodecName codec,
      FileColumns columns)
      throws IOException {
    this(conf, file, valueSchema, excludedFields, codec, columns, null);
  }

  /**
   * @param dictionaries what earlier files of the table said of each column's dictionary, to be
   *     told what this one says; null: a dictionary for every column
   */
  public ParquetFileWriter(
      Configuration conf,
      Path file,
      Schema valueSchema,
      Set<String> excludedFields,
      CompressionCodecName codec,
      FileColumns columns,
      DictionaryChoices dictionaries)
      throws IOException {
    Set<String> excluded = excludedFields == null ? Set.of() : excludedFields;
    this.conf = conf;
    this.file = file;
    MessageType parquetSchema = DeltaSchemas.toParquet(valueSchema, excluded, columns);
    StructWriter root =
        WriterTree.build(valueSchema, parquetSchema, excluded, stats, columns.statsColumns());
    this.writeSupport = new StructWriteSupport(parquetSchema, root);
    this.dictionaries = dictionaries;
    this.plainColumns = dictionaries == null ? Set.of() : dictionaries.plainColumns();
    Builder builder =
        new Builder(HadoopOutputFile.fromPath(file, conf), writeSupport)
            .withConf(conf)
            .withCompressionCodec(codec)
            .withCodecFactory(new CodecFactory(conf, COMPRESSOR_BUFFER_BYTES))
            .withWriteMode(org.apache.parquet.hadoop.ParquetFileWriter.Mode.CREATE);
    for (ColumnPath column : plainColumns) {
      builder.withDictionaryEncoding(column.toDotString(), false);
    }
    this.writer = builder.build();
    this.reservedBytes =
        RESERVED_PER_FILE
            + RESERVED_PER_COLUMN * parquetSchema.getColumns().size()
            + (codec == CompressionCodecName.UNCOMPRESSED ? 0 : COMPRESSOR_BUFFER_BYTES);
  }

  /**
   * @throws org.apache.kafka.connect.errors.DataException if the record does not fit the schema;
   *     the file is unchanged then and writing may go on
   */
  public void write(Struct value) throws IOException {
    if (closed) {
      throw new IllegalStateException("Parquet file " + file + " is already closed");
    }
    if (value == null) {
      throw new DataException(
          "A null record value (tombstone) has no row to write; "
              + "behavior.on.null.values decides what happens to it before it gets here");
    }
    writeSupport.check(value);
    writer.write(value);
    numRecords++;
  }

  /**
   * Whether the file holds about {@code maxBytes}. Parquet's size walks every column, so it is
   * asked only when the rows so far say the file could be there: after half the rows the remaining
   * bytes hold at the average row size, at most {@link #MAX_ROWS_BETWEEN_SIZE_CHECKS} on. Asked at
   * every row it was 4% of the task thread's CPU in the end-to-end profile.
   */
  public boolean reached(long maxBytes) {
    if (numRecords < nextSizeCheck) {
      return false;
    }
    long size = dataSize();
    if (size >= maxBytes) {
      return true;
    }
    // numRecords >= nextSizeCheck >= 1 here
    long bytesPerRow = Math.max(1, size / numRecords);
    nextSizeCheck =
        numRecords
            + Math.max(
                1, Math.min(MAX_ROWS_BETWEEN_SIZE_CHECKS, (maxBytes - size) / bytesPerRow / 2));
    return false;
  }

  /** Bytes written plus buffered so far: what the file will be about once finished. */
  public long dataSize() {
    // Parquet's count is gone once its writer is closed; the file's length is the honest answer
    // then.
    return closed ? closedSize : writer.getDataSize();
  }

  /**
   * What the file holds in memory while open besides its buffered values ({@link #dataSize}): its
   * writers' buffers, whatever the values (a few thousand open files of a few rows each hold far
   * more than their values).
   */
  public long reservedBytes() {
    return reservedBytes;
  }

  /** The file being written. */
  public Path path() {
    return file;
  }

  public long numRecords() {
    return numRecords;
  }

  /** Closes (uploads) the file and describes it. */
  public DataFile finish() throws IOException {
    if (closed) {
      throw new IllegalStateException("Parquet file " + file + " is already closed");
    }
    closed = true;
    writer.close();
    finished = true;
    if (dictionaries != null) {
      dictionaries.learn(writer.getFooter(), plainColumns);
    }
    FileSystem fs = file.getFileSystem(conf);
    long length = fs.getFileStatus(file).getLen();
    closedSize = length;
    return new DataFile(file, length, numRecords, stats.toJson(numRecords));
  }

  /**
   * Closes without finishing and deletes the file, best effort; after {@link #finish} it deletes
   * the file.
   */
  public void abort() {
    if (!closed) {
      closed = true;
      try {
        // ParquetWriter cannot drop its stream unclosed; on S3 this uploads what the delete removes
        // next.
        writer.close();
      } catch (Exception | LinkageError e) {
        LOG.debug("Closing aborted Parquet file {} failed", file, e);
      }
    }
    try {
      FileSystem fs = file.getFileSystem(conf);
      fs.delete(file, false);
    } catch (Exception | LinkageError e) {
      LOG.warn(
          "Could not delete aborted Parquet file {}; it is never referenced by the table (VACUUM removes it)",
          file,
          e);
    }
  }

  /**
   * Aborts an unfinished file; a no-op after {@link #finish}, so try-with-resources keeps finished
   * files.
   */
  @Override
  public void close() {
    if (!finished) {
      abort();
    }
  }

  private static final class Builder extends ParquetWriter.Builder<Struct, Builder> {
    private final WriteSupport<Struct> writeSupport;

    Builder(OutputFile file, WriteSupport<Struct> writeSupport) {
      super(file);
      this.writeSupport = writeSupport;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Struct> getWriteSupport(ParquetConfiguration conf) {
      return writeSupport;
    }

    /** Still abstract in parquet-hadoop 1.15, though build() calls the variant above. */
    @Override
    @SuppressWarnings("deprecation")
    protected WriteSupport<Struct> getWriteSupport(Configuration conf) {
      return writeSupport;
    }
  }
}
