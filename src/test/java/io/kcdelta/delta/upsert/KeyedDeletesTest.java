package io.kcdelta.delta.upsert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.CommitPlan;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.UnsupportedTableException;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.dv.DeletionVectorFiles;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.ParquetFileWriter;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.schema.RowKey;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyedDeletesTest {
  private static final Schema ROW =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .build();

  @TempDir java.nio.file.Path dir;
  private final Configuration conf = new Configuration();

  private TableLog table(Map<String, String> properties) {
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
    TableLog log = new TableLog(dir.toUri().toString(), conf, "test");
    Metadata metadata = Metadata.create(DeltaSchemas.toDelta(ROW), List.of(), properties);
    commit(log, metadata, List.of(), List.of());
    return log;
  }

  private static void commit(
      TableLog log, Metadata metadata, List<AddFile> adds, List<io.kcdelta.delta.RemoveFile> rs) {
    log.commit(
        (base, since) ->
            new CommitPlan(metadata, adds, rs, List.of(), "WRITE", Map.of(), false, Map.of()));
  }

  private AddFile write(TableLog log, long from, long to) throws IOException {
    Path file = new Path(log.root(), "part-" + from + ".parquet");
    DataFile done;
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, ROW, Set.of(), CompressionCodecName.SNAPPY)) {
      for (long id = from; id < to; id++) {
        w.write(new Struct(ROW).put("id", id).put("name", "n" + id));
      }
      done = w.finish();
    }
    return AddFile.of(
        LogPaths.relative(log.root(), file), Map.of(), done.sizeBytes(), 0, true, done.statsJson());
  }

  private static List<RowKey> keys(long... ids) {
    return java.util.Arrays.stream(ids).mapToObj(RowKey::of).toList();
  }

  private static Metadata metadata(String... properties) {
    Map<String, String> props = new java.util.HashMap<>();
    for (int i = 0; i < properties.length; i += 2) {
      props.put(properties[i], properties[i + 1]);
    }
    return Metadata.create(DeltaSchemas.toDelta(ROW), List.of(), props);
  }

  @Test
  void marksTheRowsOfTheKeysInTheirFilesAndBuildsOnEarlierVectors() throws IOException {
    TableLog log = table(Map.of("delta.enableDeletionVectors", "true"));
    AddFile low = write(log, 0, 10);
    AddFile high = write(log, 10, 20);
    commit(log, null, List.of(low, high), List.of());
    KeyedDeletes deletes = new KeyedDeletes(log, conf, new KeyIndex(1_000));

    KeyedDeletes.Plan plan = deletes.plan(log.update(), List.of("id"), keys(3, 15, 99), Map.of());
    assertEquals(2, plan.filesSearched());
    assertEquals(2, plan.rowsDeleted());
    assertEquals(2, plan.removes().size());
    DeletionVectorFiles vectors = new DeletionVectorFiles(log.root(), conf);
    AddFile lowMarked =
        plan.adds().stream().filter(a -> a.path().equals(low.path())).findFirst().get();
    assertArrayEquals(
        new long[] {3}, vectors.read(lowMarked.deletionVectorDescriptor()).positions());
    assertTrue(lowMarked.stats().contains("\"tightBounds\":false"), lowMarked.stats());
    commit(log, null, plan.adds(), plan.removes());

    // Stats rule out the file of ids 10..19; the other one's vector grows.
    KeyedDeletes.Plan next = deletes.plan(log.update(), List.of("id"), keys(4, 3), Map.of());
    assertEquals(1, next.filesSearched());
    assertEquals(1, next.rowsDeleted(), "row 3 was deleted already");
    assertArrayEquals(
        new long[] {3, 4}, vectors.read(next.adds().get(0).deletionVectorDescriptor()).positions());

    // Rows superseded in the commit's own new file get its vector, in the same vector file.
    KeyedDeletes.Plan own =
        deletes.plan(
            log.update(), List.of("id"), List.of(), Map.of("new.parquet", DeletionVector.of(0, 2)));
    assertEquals(List.of(), own.removes());
    assertArrayEquals(
        new long[] {0, 2}, vectors.read(own.newFileVectors().get("new.parquet")).positions());
  }

  @Test
  void aTableWithoutDeletionVectorsOrWithTheChangeFeedIsRefusedSayingWhatToDo() {
    Metadata plain = metadata();
    UnsupportedTableException e =
        assertThrows(
            UnsupportedTableException.class,
            () -> KeyedDeletes.checkUpsertable("s3a://b/t", plain));
    assertTrue(e.getMessage().contains("'delta.enableDeletionVectors' = 'true'"), e.getMessage());
    Metadata feed =
        metadata("delta.enableDeletionVectors", "true", "delta.enableChangeDataFeed", "true");
    assertTrue(
        assertThrows(UnsupportedTableException.class, () -> KeyedDeletes.checkUpsertable("t", feed))
            .getMessage()
            .contains("change data"));
    Metadata appendOnly =
        metadata("delta.enableDeletionVectors", "true", "delta.appendOnly", "true");
    assertTrue(
        assertThrows(
                UnsupportedTableException.class,
                () -> KeyedDeletes.checkUpsertable("t", appendOnly))
            .getMessage()
            .contains("delta.appendOnly=true"));
    KeyedDeletes.checkUpsertable("t", metadata("delta.enableDeletionVectors", "true"));
  }
}
