package io.kcdelta.testutil;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Reads Parquet files back with parquet-hadoop's own reader, independent of the code that wrote
 * them.
 */
public final class ParquetRows {
  private ParquetRows() {}

  public static List<Group> read(Configuration conf, Path file) throws IOException {
    List<Group> rows = new ArrayList<>();
    try (ParquetReader<Group> reader =
        new GroupReaderBuilder(HadoopInputFile.fromPath(file, conf)).build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        rows.add(g);
      }
    }
    return rows;
  }

  /**
   * A reader on the caller's Configuration. {@code ParquetReader.builder(readSupport, path)} makes
   * a fresh Configuration per file, which parses core-default.xml again (a quarter of the
   * simulation's time).
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

  /** The schema stored in the file's footer. */
  public static MessageType schema(Configuration conf, Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }
}
