package io.kcdelta.maintenance;

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
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Copies the rows of Parquet files of one schema into one new file, row by row: the output has the
 * inputs' exact Parquet schema (names, types, logical types, field ids) and full-size row groups.
 * One file is read at a time, so memory is one row group of the output plus one page per input
 * column.
 */
final class FileRewriter {
  /** The output's row group size; a file buffers one row group in memory while it is written. */
  static final long MAX_ROW_GROUP_BYTES = 64L * 1024 * 1024;

  private static final int ROWS_BETWEEN_STOP_CHECKS = 10_000;

  private final Configuration conf;
  private final CompressionCodecName codec;
  private final long rowGroupBytes;

  FileRewriter(Configuration conf, CompressionCodecName codec, long targetBytes) {
    this.conf = conf;
    this.codec = codec;
    this.rowGroupBytes = Math.min(targetBytes, MAX_ROW_GROUP_BYTES);
  }

  /** The Parquet schema in the file's footer. */
  MessageType schemaOf(Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  /**
   * Indexes of the largest set of files that share one schema: only those can be copied into one
   * file (a file written before the table gained a column has one column less).
   */
  List<Integer> largestSameSchema(List<Path> files) throws IOException {
    Map<MessageType, List<Integer>> bySchema = new LinkedHashMap<>();
    for (int i = 0; i < files.size(); i++) {
      bySchema.computeIfAbsent(schemaOf(files.get(i)), s -> new ArrayList<>()).add(i);
    }
    return bySchema.values().stream().max(Comparator.comparingInt(List::size)).orElseThrow();
  }

  /** The stop signal came while the files were copied; the output is deleted. */
  static final class StoppedException extends IOException {
    StoppedException() {
      super("stopped");
    }
  }

  /**
   * Writes every row of {@code inputs} (all of {@code schema}) into {@code output}, which must not
   * exist; deletes it on any failure.
   *
   * @return the rows written
   */
  long rewrite(List<Path> inputs, MessageType schema, Path output, BooleanSupplier stop)
      throws IOException {
    long rows = 0;
    boolean done = false;
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(HadoopOutputFile.fromPath(output, conf))
            .withConf(conf)
            .withType(schema)
            .withCompressionCodec(codec)
            .withRowGroupSize(rowGroupBytes)
            .withWriteMode(ParquetFileWriter.Mode.CREATE)
            .build()) {
      for (Path input : inputs) {
        try (ParquetReader<Group> reader =
            new GroupReaderBuilder(HadoopInputFile.fromPath(input, conf)).withConf(conf).build()) {
          for (Group row = reader.read(); row != null; row = reader.read()) {
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
      done = true;
    } finally {
      if (!done) {
        output.getFileSystem(conf).delete(output, false);
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
