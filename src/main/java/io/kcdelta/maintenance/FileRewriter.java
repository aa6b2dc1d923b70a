package io.kcdelta.maintenance;

import io.kcdelta.delta.dv.DeletionVector;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Merges Parquet files of one schema into one new file with the inputs' exact Parquet schema
 * (names, types, logical types, field ids), in one of two ways:
 *
 * <ul>
 *   <li>files whose row groups are all at least {@value #MIN_COPIED_ROW_GROUP_BYTES} bytes: their
 *       row groups are copied as they are, compressed pages and all, without decoding a value
 *       (cheap: the bytes are read and written once);
 *   <li>otherwise row by row, into full-size row groups: a streaming sink's files have row groups
 *       as small as the files, which readers would pay for.
 * </ul>
 *
 * Files with deletion vectors always take the second way, without their deleted rows.
 *
 * <p>The compaction policy makes a byte go through the second way about once: files of a few MB
 * made from the first small files have row groups big enough to be copied from then on. One input
 * is read at a time; memory is one output row group plus one page per input column.
 */
final class FileRewriter {
  /** The output's row group size; a file buffers one row group in memory while it is written. */
  static final long MAX_ROW_GROUP_BYTES = 64L * 1024 * 1024;

  /** Row groups at least this large (compressed) are copied, not rewritten. */
  static final long MIN_COPIED_ROW_GROUP_BYTES = 4L * 1024 * 1024;

  private static final int ROWS_BETWEEN_STOP_CHECKS = 10_000;

  private final Configuration conf;
  private final CompressionCodecName codec;
  private final long rowGroupBytes;
  private final long minCopiedRowGroupBytes;

  FileRewriter(Configuration conf, CompressionCodecName codec, long targetBytes) {
    this(conf, codec, targetBytes, MIN_COPIED_ROW_GROUP_BYTES);
  }

  /** With another threshold for copying row groups: for tests of either way on small files. */
  FileRewriter(
      Configuration conf,
      CompressionCodecName codec,
      long targetBytes,
      long minCopiedRowGroupBytes) {
    this.conf = conf;
    this.codec = codec;
    this.rowGroupBytes = Math.min(targetBytes, MAX_ROW_GROUP_BYTES);
    this.minCopiedRowGroupBytes = minCopiedRowGroupBytes;
  }

  /** What a file's footer says: its schema, rows, and its smallest row group (compressed). */
  record Footer(MessageType schema, long rows, long smallestRowGroupBytes) {}

  Footer footer(Path file) throws IOException {
    ParquetMetadata md;
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      md = reader.getFooter();
    }
    long rows = 0;
    long smallest = Long.MAX_VALUE;
    for (BlockMetaData block : md.getBlocks()) {
      rows += block.getRowCount();
      smallest = Math.min(smallest, block.getCompressedSize());
    }
    return new Footer(md.getFileMetaData().getSchema(), rows, smallest);
  }

  /**
   * Indexes of the largest set of files that share one schema: only those can be merged into one
   * file (a file written before the table gained a column has one column less).
   */
  static List<Integer> largestSameSchema(List<Footer> footers) {
    Map<MessageType, List<Integer>> bySchema = new LinkedHashMap<>();
    for (int i = 0; i < footers.size(); i++) {
      bySchema.computeIfAbsent(footers.get(i).schema(), s -> new ArrayList<>()).add(i);
    }
    return bySchema.values().stream().max(Comparator.comparingInt(List::size)).orElseThrow();
  }

  /** The stop signal came while the files were merged; the output is deleted. */
  static final class StoppedException extends IOException {
    StoppedException() {
      super("stopped");
    }
  }

  /**
   * Merges {@code inputs} (their footers in {@code footers}, one schema) into {@code output}, which
   * must not exist, leaving out the rows of each input's deletion vector; deletes the output on any
   * failure.
   *
   * @param deleted per input, the rows to leave out (null: none)
   * @return the rows written
   */
  long merge(
      List<Path> inputs,
      List<Footer> footers,
      List<DeletionVector> deleted,
      Path output,
      BooleanSupplier stop)
      throws IOException {
    MessageType schema = footers.get(0).schema();
    boolean copy =
        deleted.stream().allMatch(d -> d == null)
            && footers.stream().allMatch(f -> f.smallestRowGroupBytes() >= minCopiedRowGroupBytes);
    boolean done = false;
    try {
      long rows =
          copy
              ? copyRowGroups(inputs, schema, output, stop)
              : rewrite(inputs, deleted, schema, output, stop);
      done = true;
      return rows;
    } finally {
      if (!done) {
        output.getFileSystem(conf).delete(output, false);
      }
    }
  }

  private long copyRowGroups(
      List<Path> inputs, MessageType schema, Path output, BooleanSupplier stop) throws IOException {
    ParquetFileWriter writer =
        new ParquetFileWriter(
            HadoopOutputFile.fromPath(output, conf),
            schema,
            ParquetFileWriter.Mode.CREATE,
            rowGroupBytes,
            0);
    writer.start();
    for (Path input : inputs) {
      if (stop.getAsBoolean()) {
        throw new StoppedException();
      }
      writer.appendFile(HadoopInputFile.fromPath(input, conf));
    }
    writer.end(Map.of());
    return footer(output).rows();
  }

  private long rewrite(
      List<Path> inputs,
      List<DeletionVector> deleted,
      MessageType schema,
      Path output,
      BooleanSupplier stop)
      throws IOException {
    long rows = 0;
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(HadoopOutputFile.fromPath(output, conf))
            .withConf(conf)
            .withType(schema)
            .withCompressionCodec(codec)
            .withRowGroupSize(rowGroupBytes)
            .withWriteMode(ParquetFileWriter.Mode.CREATE)
            .build()) {
      for (int i = 0; i < inputs.size(); i++) {
        DeletionVector skip = deleted.get(i);
        long position = 0;
        try (ParquetReader<Group> reader =
            new GroupReaderBuilder(HadoopInputFile.fromPath(inputs.get(i), conf))
                .withConf(conf)
                .build()) {
          for (Group row = reader.read(); row != null; row = reader.read(), position++) {
            if (skip != null && skip.contains(position)) {
              continue;
            }
            writer.write(row);
            if (++rows % ROWS_BETWEEN_STOP_CHECKS == 0 && stop.getAsBoolean()) {
              throw new StoppedException();
            }
          }
        }
        if (stop.getAsBoolean()) {
          throw new StoppedException();
        }
      }
    }
    return rows;
  }

  /**
   * A reader on our Configuration: {@code ParquetReader.builder(readSupport, path)} makes a fresh
   * one per file, which parses Hadoop's default resources again.
   */
  private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
    GroupReaderBuilder(InputFile file) {
      super(file);
    }

    @Override
    protected ReadSupport<Group> getReadSupport() {
      return new GroupReadSupport();
    }
  }
}
