package io.kcdelta.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.standalone.Operation;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.RemoveFile;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.testutil.ParquetRows;
import io.kcdelta.testutil.StandaloneTypes;
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
        table.root,
        table.conf,
        new CompactionPlanner(TARGET, minFiles, 0),
        new FileRewriter(table.conf, CompressionCodecName.SNAPPY, TARGET, minCopiedRowGroupBytes),
        table.names,
        "test");
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
    for (AddFile f : table.log().update().getAllFiles()) {
      assertEquals(JSON.readTree(rowStats(table.absolute(f))), JSON.readTree(f.getStats()));
      rowGroups.put(f.getPartitionValues().get("p"), rowGroupCount(table.absolute(f)));
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
    Collection<AddFile> live = table.log().update().getAllFiles();
    assertEquals(1 + 3, live.size(), "a's ten files became one; b's three stay");

    VersionLog commit = table.log().getChanges(c.version(), true).next();
    List<Action> actions = commit.getActions();
    List<RemoveFile> removes = only(actions, RemoveFile.class);
    List<AddFile> adds = only(actions, AddFile.class);
    assertEquals(
        a.stream().map(AddFile::getPath).collect(Collectors.toSet()),
        removes.stream().map(RemoveFile::getPath).collect(Collectors.toSet()));
    assertEquals(1, adds.size());
    assertTrue(removes.stream().noneMatch(RemoveFile::isDataChange), "removes: dataChange=false");
    assertFalse(adds.get(0).isDataChange(), "add: dataChange=false");
    assertTrue(only(actions, SetTransaction.class).isEmpty(), "no Kafka offsets");
    assertEquals(Map.of("p", "a"), adds.get(0).getPartitionValues());

    // Stats: those of the rows actually in the new file.
    AddFile merged = adds.get(0);
    assertEquals(JSON.readTree(rowStats(table.absolute(merged))), JSON.readTree(merged.getStats()));
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
        once(
            () ->
                table.commit(
                    List.of(deleted.remove(System.currentTimeMillis(), true)),
                    Operation.Name.DELETE));

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
    for (AddFile f : table.log().update().getAllFiles()) {
      assertTrue(fs.exists(table.absolute(f)), "a live file was deleted: " + f.getPath());
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
    assertEquals(2, table.log().update().getAllFiles().size());
  }

  @Test
  void filesOfAnOlderSchemaAreMergedApartFromTheNewer() throws Exception {
    table.append("a", 1_000, 3, 2, 0);
    List<AddFile> wider = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      wider.add(table.write(TestTable.WIDER, "a", 2_000, 100 + i));
    }
    table.commit(
        List.of(
            table
                .log()
                .update()
                .getMetadata()
                .copyBuilder()
                .schema(StandaloneTypes.of(DeltaSchemas.toDelta(TestTable.WIDER)))
                .build()),
        Operation.Name.ADD_COLUMNS);
    table.commit(wider, Operation.Name.WRITE);

    Compactor.Compacted c =
        assertInstanceOf(
            Compactor.Compacted.class,
            compactor(8).compactOnce(System.currentTimeMillis(), () -> false));

    assertEquals(5, c.files(), "the five files of the wider schema, the larger set");
    assertEquals(11, table.idCounts().size());
    assertEquals(3 + 1, table.log().update().getAllFiles().size());
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
    return new OrphanFiles(table.log(), table.root, table.conf, table.names, 0)
        .find(System.currentTimeMillis()).stream().map(Path::getName).collect(Collectors.toSet());
  }

  /** The stats our writer gives a file of the rows this file holds (written beside it). */
  private String rowStats(Path file) throws IOException {
    long[] ids =
        ParquetRows.read(table.conf, file).stream().mapToLong(g -> g.getLong("id", 0)).toArray();
    // Not read from the log: the builder's stats are the JSON string literal the log will hold.
    return JSON.readTree(table.write(TestTable.ROW, "a", 0, ids).getStats()).asText();
  }

  private static <T> List<T> only(List<Action> actions, Class<T> type) {
    return actions.stream().filter(type::isInstance).map(type::cast).toList();
  }
}
