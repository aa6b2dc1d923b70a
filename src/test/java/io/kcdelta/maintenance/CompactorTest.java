package io.kcdelta.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.RemoveFile;
import io.kcdelta.testutil.ParquetRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TARGET = 1L << 20;

  @TempDir java.nio.file.Path dir;
  private TestTable table;

  @BeforeEach
  void createTable() {
    table = new TestTable(dir);
    table.create(TestTable.ROW);
  }

  private Compactor compactor(int minFiles) {
    return compactor(minFiles, FileRewriter.MIN_COPIED_ROW_GROUP_BYTES);
  }

  private Compactor compactor(int minFiles, long minCopiedRowGroupBytes) {
    return new Compactor(
        table.log(),
        table.conf,
        new CompactionPlanner(TARGET, minFiles, 0),
        new FileRewriter(table.conf, CompressionCodecName.SNAPPY, TARGET, minCopiedRowGroupBytes),
        table.names);
  }

  /**
   * Row groups at least as large as the threshold are copied as they are (one per input here);
   * smaller ones are rewritten into one. The rows and their stats are the same either way.
   */
  @Test
  void largeRowGroupsAreCopiedSmallOnesRewritten() throws Exception {
    table.append("a", 1_000, 8, 3, 0);
    table.append("b", 1_000, 8, 3, 100);
    Map<Long, Integer> before = table.idCounts();

    Compactor.Compacted copied =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8, 0).compactOnce(System.currentTimeMillis(), () -> false));
    Compactor.Compacted rewritten =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8, Long.MAX_VALUE).compactOnce(System.currentTimeMillis(), () -> false));

    assertEquals(before, table.idCounts());
    Map<String, Integer> rowGroups = new HashMap<>();
    for (AddFile f : table.liveFiles()) {
      assertEquals(JSON.readTree(rowStats(table.absolute(f))), JSON.readTree(f.stats()));
      rowGroups.put(f.partitionValues().get("p"), rowGroupCount(table.absolute(f)));
    }
    assertEquals(Map.of("a", 8, "b", 1), rowGroups, "a's eight row groups copied, b's rewritten");
    assertEquals(24, copied.rows());
    assertEquals(24, rewritten.rows());
  }

  private int rowGroupCount(Path file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(file, table.conf))) {
      return reader.getFooter().getBlocks().size();
    }
  }

  @Test
  void mergesThePartitionValueWithEnoughSmallFilesWithoutChangingData() throws Exception {
    List<AddFile> a = table.append("a", 1_000, 10, 3, 0);
    table.append("b", 1_000, 3, 3, 100);
    Map<Long, Integer> before = table.idCounts();

    Compactor.Result result = compactor(8).compactOnce(System.currentTimeMillis(), () -> false);

    Compactor.Compacted c = assertInstanceOf(Compactor.Compacted.class, result);
    assertEquals(10, c.files());
    assertEquals(30, c.rows());
    assertEquals(before, table.idCounts(), "the same rows, each once");
    Collection<AddFile> live = table.liveFiles();
    assertEquals(1 + 3, live.size(), "a's ten files became one; b's three stay");

    LogCommit commit = table.commitAt(c.version());
    List<RemoveFile> removes = commit.removes();
    List<AddFile> adds = commit.adds();
    assertEquals(
        a.stream().map(AddFile::path).collect(Collectors.toSet()),
        removes.stream().map(RemoveFile::path).collect(Collectors.toSet()));
    assertEquals(1, adds.size());
    assertTrue(removes.stream().noneMatch(RemoveFile::dataChange), "removes: dataChange=false");
    assertFalse(adds.get(0).dataChange(), "add: dataChange=false");
    assertTrue(commit.txns().isEmpty(), "no Kafka offsets");
    assertEquals(Map.of("p", "a"), adds.get(0).partitionValues());

    // Stats: those of the rows actually in the new file.
    AddFile merged = adds.get(0);
    assertEquals(JSON.readTree(rowStats(table.absolute(merged))), JSON.readTree(merged.stats()));
    assertTrue(table.names.isOurs(table.absolute(merged).getName()));
    // The removed files stay for time travel.
    FileSystem fs = table.root.getFileSystem(table.conf);
    for (AddFile f : a) {
      assertTrue(fs.exists(table.absolute(f)));
    }
  }

  @Test
  void aConcurrentDeleteOfAnInputWinsAndNoRowComesBack() throws Exception {
    List<AddFile> a = table.append("a", 1_000, 8, 2, 0);
    AddFile deleted = a.get(3);
    BooleanSupplier deleteDuringRewrite =
        once(() -> table.delete(List.of(deleted.remove(System.currentTimeMillis(), true))));

    Compactor.Result result =
        compactor(8).compactOnce(System.currentTimeMillis(), deleteDuringRewrite);

    assertInstanceOf(Compactor.Conflicted.class, result);
    Map<Long, Integer> counts = table.idCounts();
    assertEquals(14, counts.size(), "16 rows less the deleted file's 2");
    assertFalse(counts.containsKey(6L) || counts.containsKey(7L), "deleted rows stay deleted");
    assertEquals(Set.of(), unreferencedFilesOfOurs(), "the compaction's file is deleted");
  }

  @Test
  void aCommitThatLandedAlthoughItsRetryFoundTheVersionTakenKeepsItsFile() throws Exception {
    table.append("a", 1_000, 8, 2, 0);
    table.conf.set("delta.logStore.file.impl", LandThenTakenLogStore.class.getName());
    LandThenTakenLogStore.ARMED.set(true);

    Compactor.Result result = compactor(8).compactOnce(System.currentTimeMillis(), () -> false);

    assertEquals(8, assertInstanceOf(Compactor.Compacted.class, result).files());
    FileSystem fs = table.root.getFileSystem(table.conf);
    for (AddFile f : table.liveFiles()) {
      assertTrue(fs.exists(table.absolute(f)), "a live file was deleted: " + f.path());
    }
    assertEquals(16, table.idCounts().size());
  }

  @Test
  void aConcurrentAppendToTheSamePartitionValueDoesNotConflict() throws Exception {
    table.append("a", 1_000, 8, 2, 0);
    BooleanSupplier appendDuringRewrite = once(() -> table.append("a", 2_000, 1, 5, 100));

    Compactor.Result result =
        compactor(8).compactOnce(System.currentTimeMillis(), appendDuringRewrite);

    assertEquals(8, assertInstanceOf(Compactor.Compacted.class, result).files());
    assertEquals(21, table.idCounts().size());
    assertEquals(2, table.liveFiles().size());
  }

  @Test
  void filesOfAnOlderSchemaAreMergedApartFromTheNewer() throws Exception {
    table.append("a", 1_000, 3, 2, 0);
    List<AddFile> wider = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      wider.add(table.write(TestTable.WIDER, "a", 2_000, 100 + i));
    }
    table.setSchema(TestTable.WIDER);
    table.append(wider);

    Compactor.Compacted c =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8).compactOnce(System.currentTimeMillis(), () -> false));

    assertEquals(5, c.files(), "the five files of the wider schema, the larger set");
    assertEquals(11, table.idCounts().size());
    assertEquals(3 + 1, table.liveFiles().size());
  }

  private void useTableWithDeletionVectors() {
    table = new TestTable(dir.resolve("dv"));
    table.createWithDeletionVectors(TestTable.ROW);
  }

  /**
   * Rows deleted by deletion vectors (two files, one deleted from twice) are left out of the merged
   * file; its stats count the rows kept, with wide bounds; the vectors' files are not referenced.
   */
  @Test
  void filesWithDeletionVectorsAreMergedWithoutTheirDeletedRows() throws Exception {
    useTableWithDeletionVectors();
    List<AddFile> a = table.append("a", 1_000, 8, 4, 0);
    AddFile once = table.deleteRows(a.get(1), 0, 3);
    table.deleteRows(table.deleteRows(a.get(6), 2), 1);
    Map<Long, Integer> before = table.idCounts();
    assertEquals(32 - 4, before.size());
    assertFalse(before.containsKey(4L) || before.containsKey(7L), "positions 0 and 3 of file 1");
    assertEquals(2, once.deletedRows());

    Compactor.Compacted c =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8).compactOnce(System.currentTimeMillis(), () -> false));

    assertEquals(8, c.files());
    assertEquals(28, c.rows());
    assertEquals(4, c.purgedRows());
    assertEquals(before, table.idCounts(), "the rows readers saw, each once");
    AddFile merged = table.liveFiles().get(0);
    assertEquals(1, table.liveFiles().size());
    assertEquals(null, merged.deletionVector());
    var stats = JSON.readTree(merged.stats());
    assertEquals(28, stats.get("numRecords").asLong());
    assertFalse(stats.get("tightBounds").asBoolean(), "a deleted row may have held a bound");
    assertEquals(0, stats.get("minValues").get("id").asLong());
    assertEquals(0, stats.get("nullCount").get("id").asLong(), "0 nulls stays exact");
  }

  /** A file mostly deleted is rewritten alone, and a file wholly deleted just goes. */
  @Test
  void aFileAFifthDeletedIsRewrittenAloneAndAWhollyDeletedOneRemoved() throws Exception {
    useTableWithDeletionVectors();
    List<AddFile> a = table.append("a", 1_000, 2, 10, 0);
    table.deleteRows(a.get(0), 1); // a tenth: stays
    table.deleteRows(a.get(1), 0, 5); // a fifth: rewritten

    Compactor.Compacted c =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8).compactOnce(System.currentTimeMillis(), () -> false));
    assertEquals(1, c.files());
    assertEquals(8, c.rows());
    assertEquals(20 - 3, table.idCounts().size());
    assertEquals(1, table.liveFiles().stream().filter(f -> f.deletionVector() == null).count());

    AddFile first = table.liveFiles().stream().filter(f -> f.deletedRows() > 0).findFirst().get();
    table.deleteRows(first, 0, 2, 3, 4, 5, 6, 7, 8, 9);
    Compactor.Compacted gone =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8).compactOnce(System.currentTimeMillis(), () -> false));
    assertEquals(0, gone.rows());
    assertEquals(0, gone.newBytes());
    assertEquals(1, table.liveFiles().size(), "no file of no rows is added");
    assertEquals(8, table.idCounts().size());
    assertEquals(Set.of(), unreferencedFilesOfOurs(), "the empty output is deleted");
  }

  /**
   * Another writer deletes more rows of an input (a new deletion vector: the file's remove and add)
   * while the files are merged: the merge, made without those rows' deletion, is dropped.
   */
  @Test
  void aConcurrentDeletionVectorOnAnInputWinsAndNoDeletedRowComesBack() throws Exception {
    useTableWithDeletionVectors();
    List<AddFile> a = table.append("a", 1_000, 8, 2, 0);
    AddFile marked = table.deleteRows(a.get(2), 0);
    BooleanSupplier deleteDuringRewrite = once(() -> table.deleteRows(marked, 1));

    Compactor.Result result =
        compactor(8).compactOnce(System.currentTimeMillis(), deleteDuringRewrite);

    assertInstanceOf(Compactor.Conflicted.class, result);
    Map<Long, Integer> counts = table.idCounts();
    assertEquals(14, counts.size());
    assertFalse(counts.containsKey(4L) || counts.containsKey(5L), "deleted rows stay deleted");
    assertEquals(Set.of(), unreferencedFilesOfOurs(), "the compaction's file is deleted");
  }

  @Test
  void nothingToDoBelowTheMinimumOrOnAnEmptyTable() throws Exception {
    assertInstanceOf(
        Compactor.NothingToDo.class,
        compactor(8).compactOnce(System.currentTimeMillis(), () -> false));
    table.append("a", 1_000, 7, 1, 0);
    assertInstanceOf(
        Compactor.NothingToDo.class,
        compactor(8).compactOnce(System.currentTimeMillis(), () -> false));
  }

  /** Runs {@code action} on the first call, during the rewrite; never asks to stop. */
  private static BooleanSupplier once(ThrowingRunnable action) {
    boolean[] done = {false};
    return () -> {
      if (!done[0]) {
        done[0] = true;
        try {
          action.run();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      return false;
    };
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private Set<String> unreferencedFilesOfOurs() throws IOException {
    return new OrphanFiles(table.log(), table.conf, table.names, 0)
        .find(System.currentTimeMillis()).stream().map(Path::getName).collect(Collectors.toSet());
  }

  /** The stats our writer gives a file of the rows this file holds (written beside it). */
  private String rowStats(Path file) throws IOException {
    long[] ids =
        ParquetRows.read(table.conf, file).stream().mapToLong(g -> g.getLong("id", 0)).toArray();
    return table.write(TestTable.ROW, "a", 0, ids).stats();
  }
}
