package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kcdelta.schema.FileColumns;
import io.kcdelta.testutil.ParquetRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DictionaryChoicesTest {
  @TempDir java.nio.file.Path dir;

  private final Configuration conf = new Configuration();

  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("email", Schema.STRING_SCHEMA)
          .field("status", Schema.STRING_SCHEMA)
          .build();

  private final DictionaryChoices choices = new DictionaryChoices();
  private int files;
  private long nextId;

  /** Writes a file of rows with unique ids and emails and five statuses; its columns' encodings. */
  private Map<String, String> writeFile(boolean uniqueEmails) throws IOException {
    Path file = new Path(dir.resolve("f" + files++ + ".parquet").toUri());
    List<Struct> rows = new ArrayList<>();
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            conf,
            file,
            SCHEMA,
            Set.of(),
            CompressionCodecName.SNAPPY,
            FileColumns.of(SCHEMA),
            choices)) {
      for (int i = 0; i < 30_000; i++) {
        long id = nextId++;
        Struct row =
            new Struct(SCHEMA)
                .put("id", id)
                .put("email", uniqueEmails ? "user" + id + "@example.com" : "same@example.com")
                .put("status", "s" + (id % 5));
        w.write(row);
        rows.add(row);
      }
      w.finish();
    }
    // The values read back are the ones written, whatever the encoding.
    assertEquals(rows.size(), ParquetRows.read(conf, file).size());
    Map<String, String> encodings = new TreeMap<>();
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      for (ColumnChunkMetaData c : r.getFooter().getBlocks().get(0).getColumns()) {
        EncodingStats s = c.getEncodingStats();
        encodings.put(
            c.getPath().toDotString(),
            !s.hasDictionaryPages()
                ? "plain"
                : s.hasNonDictionaryEncodedPages() ? "fell back" : "dictionary");
      }
    }
    return encodings;
  }

  @Test
  void aColumnWhoseDictionaryFailedIsWrittenPlainUntilItIsTriedAgain() throws IOException {
    // Parquet tries a dictionary everywhere; unique values give up on it at the first page.
    assertEquals(Map.of("email", "plain", "id", "plain", "status", "dictionary"), writeFile(true));
    assertEquals(Map.of("email", "plain", "id", "plain", "status", "dictionary"), writeFile(true));
    assertEquals(Set.of("email", "id"), plainColumns());
    // The emails become repetitive: written plain still, until the columns are tried again ...
    for (int i = 1; i < DictionaryChoices.PLAIN_FILES; i++) {
      assertEquals("plain", writeFile(false).get("email"));
    }
    assertEquals(Set.of(), plainColumns(), "both tried with a dictionary again");
    // ... when the emails keep theirs; the ids, still unique, give it up again.
    assertEquals(
        Map.of("email", "dictionary", "id", "plain", "status", "dictionary"), writeFile(false));
    assertEquals(Set.of("id"), plainColumns());
  }

  private Set<String> plainColumns() {
    Set<String> out = new TreeSet<>();
    choices.plainColumns().forEach(p -> out.add(p.toDotString()));
    return out;
  }
}
