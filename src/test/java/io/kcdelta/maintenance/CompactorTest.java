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
