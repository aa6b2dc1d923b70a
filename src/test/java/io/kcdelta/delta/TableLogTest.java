package io.kcdelta.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Delta layer against Delta Kernel as an independent reader: the state it folds from the
 * commits since its last look, its commits (rebased onto winners), and what the table's features
 * ask of each commit.
 */
class TableLogTest {
  private static final Set<String> APP_IDS = Set.of("a", "b", "c");
  private static final StructType SCHEMA =
      new StructType(new StructField("id", PrimitiveType.LONG, true));

  @TempDir Path dir;
  private final Configuration conf = new Configuration();
  private String path;

  /** Ours, as a commit group's; the other writer has a log of its own. */
  private TableLog ours;

  private TableLog other;

  @BeforeEach
  void setUp() {
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
    path = dir.toUri().toString();
    ours = new TableLog(path, conf, "test-ours");
    // Another JVM's writer: it neither takes turns with ours nor shares its state.
    Configuration elsewhere = new Configuration(conf);
    elsewhere.setBoolean(TableLog.COOPERATE_IN_JVM, false);
    other = new TableLog(path, elsewhere, "test-other");
  }

  @Test
  void theStateFollowsAnotherWriterAcrossCommitsAndCheckpoints() throws Exception {
    for (int v = 0; v < 35; v++) {
      // Every version sets one or two appIds; some appIds skip versions.
      Map<String, Long> set = new HashMap<>();
      set.put(List.of("a", "b", "c").get(v % 3), (long) v);
      if (v % 4 == 0) {
        set.put("b", 1000L + v);
      }
      commitTxns(other, set);
      if (v % 10 == 0 && v > 0) {
        assertTrue(other.checkpoint(v));
      }
      // Read after 1, 2 or 3 commits: folds one commit or several.
      if (v % 3 != 1) {
        assertEquals(kernel(), ours.update().txnVersions(APP_IDS), "at version " + v);
        assertEquals(v, ours.update().version());
      }
    }
    assertTrue(Files.exists(dir.resolve("_delta_log/00000000000000000030.checkpoint.parquet")));
    // A log opened now starts from the checkpoint and gets the same.
    assertEquals(kernel(), new TableLog(path, conf, "fresh").update().txnVersions(APP_IDS));
  }

  @Test
  void readsOnlyTheCommitsSinceTheVersionItKnew() throws Exception {
    for (long v = 0; v < 4; v++) {
      commitTxns(other, Map.of("a", v));
    }
    assertEquals(Map.of("a", 3L, "b", -1L, "c", -1L), ours.update().txnVersions(APP_IDS));
    commitTxns(other, Map.of("b", 4L));
    commitTxns(other, Map.of("a", 5L));
    // Versions 1 to 3 no longer parse: a replay from the start would have to read them.
    for (int v = 1; v <= 3; v++) {
      Files.writeString(dir.resolve(String.format("_delta_log/%020d.json", v)), "not json\n");
    }

    assertEquals(Map.of("a", 5L, "b", 4L, "c", -1L), ours.update().txnVersions(APP_IDS));
    assertThrows(RuntimeException.class, () -> new TableLog(path, conf, "fresh").update());
  }

  @Test
  void commitsGoneSinceItsLastLookAreReadFromTheCheckpoint() throws Exception {
    commitTxns(other, Map.of("a", 0L));
    commitTxns(other, Map.of("b", 1L));
    assertEquals(Map.of("a", 0L, "b", 1L, "c", -1L), ours.update().txnVersions(APP_IDS));
    for (long v = 2; v <= 12; v++) {
      commitTxns(other, Map.of(v % 2 == 0 ? "a" : "c", v));
    }
    other.checkpoint(10);
    for (int v = 2; v <= 9; v++) {
      Files.delete(dir.resolve(String.format("_delta_log/%020d.json", v)));
    }

    assertEquals(Map.of("a", 12L, "b", 1L, "c", 11L), ours.update().txnVersions(APP_IDS));
  }

  @Test
  void aLostVersionIsPlannedAgainOnTheWinnersCommit() {
    commitTxns(other, Map.of("a", 0L));
    List<Long> basesSeen = new ArrayList<>();
    List<Integer> winnersSeen = new ArrayList<>();
    CommitResult result =
        ours.commit(
            (base, since) -> {
              basesSeen.add(base.version());
              winnersSeen.add(since.size());
              if (basesSeen.size() == 1) {
                // Another writer takes the version this plan is for.
                commitTxns(other, Map.of("b", 1L));
              }
              return plan(null, Map.of("a", base.txnVersion("a") + 1));
            });

    assertEquals(List.of(0L, 1L), basesSeen);
    assertEquals(List.of(0, 1), winnersSeen, "the second plan sees the winning commit");
    assertEquals(2, result.version());
    assertEquals(2, result.attempts());
    assertEquals(Map.of("a", 1L, "b", 1L, "c", -1L), kernel());
  }

  @Test
  void theLogsOfOneJvmTakeTurnsAndShareTheNewestState() throws Exception {
    commitTxns(ours, Map.of("a", 0L));
    TableLog second = new TableLog(path, conf, "test-second");
    assertEquals(0, second.update().version(), "its first read is its own");
    for (long v = 1; v <= 3; v++) {
      commitTxns(ours, Map.of("a", v));
    }
    // Versions 1 to 3 no longer parse: the second log can only know them from ours.
    Map<Path, String> kept = new HashMap<>();
    for (int v = 1; v <= 3; v++) {
      Path commit = dir.resolve(String.format("_delta_log/%020d.json", v));
      kept.put(commit, Files.readString(commit));
      Files.writeString(commit, "not json\n");
    }
    assertEquals(3L, second.update().txnVersion("a"));
    for (Map.Entry<Path, String> e : kept.entrySet()) {
      Files.writeString(e.getKey(), e.getValue());
    }
    // While one log of the JVM commits, another waits for its turn instead of taking its version.
    List<Integer> attempts = new ArrayList<>();
    Thread t =
        new Thread(
            () ->
                attempts.add(
                    second
                        .commit((base, since) -> plan(null, Map.of("b", base.version())))
                        .attempts()));
    ours.commit(
        (base, since) -> {
          t.start();
          // Racing, it would commit version 4 and end; taking turns, it parks on the table's lock.
          while (t.isAlive() && t.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
          }
          assertTrue(t.isAlive(), "the second log waits for its turn");
          return plan(null, Map.of("a", 4L));
        });
    t.join();
    assertEquals(List.of(1), attempts, "no version lost to a log of the same JVM");
    assertEquals(Map.of("a", 4L, "b", 4L, "c", -1L), kernel());
  }

  @Test
  void aNewTableWithoutPropertiesKeepsTheWidestReadershipAndOneWithThemTheirFeatures()
      throws Exception {
    ours.commit((base, since) -> plan(Metadata.create(SCHEMA, List.of(), Map.of()), Map.of()));
    assertEquals(new Protocol(1, 2, null, null), ours.update().protocol());

    Path second = dir.resolve("featured");
    String featured = second.toUri().toString();
    TableLog log = new TableLog(featured, conf, "test");
    log.commit(
        (base, since) ->
            plan(
                Metadata.create(
                    SCHEMA,
                    List.of(),
                    Map.of(
                        "delta.enableDeletionVectors", "true",
                        "delta.enableChangeDataFeed", "true",
                        "delta.enableInCommitTimestamps", "true")),
                Map.of("a", 0L)));

    Protocol p = log.update().protocol();
    assertEquals(3, p.minReaderVersion());
    assertEquals(7, p.minWriterVersion());
    assertEquals(Set.of("deletionVectors"), p.readerFeatures());
    assertEquals(
        Set.of("changeDataFeed", "deletionVectors", "inCommitTimestamp"), p.writerFeatures());
    assertEquals(
        Set.of("changeDataFeed", "deletionVectors", "inCommitTimestamp"),
        DeltaTables.features(conf, featured),
        "Kernel reads the same protocol");
  }

  @Test
  void inCommitTimestampsComeFirstAndOnlyGrow() throws Exception {
    TableLog log = ours;
    Map<String, String> ict = Map.of("delta.enableInCommitTimestamps", "true");
    log.commit((base, since) -> plan(Metadata.create(SCHEMA, List.of(), ict), Map.of("a", 0L)));
    long previous = -1;
    for (long v = 1; v <= 5; v++) {
      long offset = v;
      log.commit((base, since) -> plan(null, Map.of("a", offset)));
      Map<?, ?> first = firstAction(v);
      Map<?, ?> info = (Map<?, ?>) first.get("commitInfo");
      long ts = ((Number) info.get("inCommitTimestamp")).longValue();
      assertTrue(ts > previous, "version " + v + ": " + ts + " after " + previous);
      previous = ts;
    }
    assertEquals(previous, DeltaTables.snapshot(conf, path).getTimestamp(DeltaTables.engine(conf)));
  }

  @Test
  void rowTrackingGivesEveryRowAFreshIdAcrossWriters() throws Exception {
    Map<String, String> tracking = Map.of("delta.enableRowTracking", "true");
    ours.commit((base, since) -> plan(Metadata.create(SCHEMA, List.of(), tracking), Map.of()));
    for (int i = 0; i < 6; i++) {
      TableLog writer = i % 2 == 0 ? ours : other;
      int files = 1 + i % 3;
      writer.commit(
          (base, since) -> {
            List<AddFile> adds = new ArrayList<>();
            for (int f = 0; f < files; f++) {
              adds.add(
                  AddFile.of(
                      "f" + base.version() + "-" + f + ".parquet",
                      Map.of(),
                      10,
                      0,
                      true,
                      "{\"numRecords\":" + (5 + f) + "}"));
            }
            return new CommitPlan(
                null, adds, List.of(), List.of(), "WRITE", Map.of(), true, Map.of());
          });
    }
    TreeMap<Long, Long> ranges = new TreeMap<>();
    long rows = 0;
    for (LogCommit c : ours.commits(1, ours.update().version())) {
      for (AddFile a : c.adds()) {
        assertEquals(c.version(), a.defaultRowCommitVersion());
        assertNull(ranges.put(a.baseRowId(), a.baseRowId() + a.numRecords() - 1));
        rows += a.numRecords();
      }
    }
    long next = 0;
    for (Map.Entry<Long, Long> r : ranges.entrySet()) {
      assertEquals(next, r.getKey(), "ids are dense and never reused");
      next = r.getValue() + 1;
    }
    assertEquals(rows, next);
    assertEquals(
        "{\"rowIdHighWaterMark\":" + (rows - 1) + "}",
        DeltaTables.snapshot(conf, path).getDomainMetadata("delta.rowTracking").orElseThrow());
  }

  @Test
  void aTableWithAFeatureWeDoNotKnowIsRefusedNamingIt() throws Exception {
    Files.createDirectories(dir.resolve("_delta_log"));
    Files.writeString(
        dir.resolve("_delta_log/00000000000000000000.json"),
        "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,"
            + "\"writerFeatures\":[\"appendOnly\",\"someFutureFeature\"]}}\n"
            + "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
            + "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\","
            + "\"partitionColumns\":[],\"configuration\":{}}}\n");
    UnsupportedTableException e =
        assertThrows(
            UnsupportedTableException.class,
            () -> ours.commit((base, since) -> plan(null, Map.of("a", 0L))));
    assertTrue(e.getMessage().contains("someFutureFeature"), e.getMessage());
    assertTrue(e.getMessage().contains(path), e.getMessage());
  }

  private Map<?, ?> firstAction(long version) throws Exception {
    String first =
        Files.readAllLines(dir.resolve(String.format("_delta_log/%020d.json", version))).get(0);
    return (Map<?, ?>) JsonParser.parse(first);
  }

  private Map<String, Long> kernel() {
    return DeltaTables.txnVersions(conf, path, APP_IDS);
  }

  private static CommitPlan plan(Metadata metadata, Map<String, Long> txns) {
    List<Txn> out = new ArrayList<>();
    txns.forEach((id, v) -> out.add(new Txn(id, v, 0L)));
    return new CommitPlan(metadata, List.of(), List.of(), out, "WRITE", Map.of(), true, Map.of());
  }

  /** The writer commits these txn versions (and the table's metadata first). */
  private static void commitTxns(TableLog writer, Map<String, Long> versions) {
    writer.commit(
        (base, since) ->
            plan(base.exists() ? null : Metadata.create(SCHEMA, List.of(), Map.of()), versions));
  }
}
