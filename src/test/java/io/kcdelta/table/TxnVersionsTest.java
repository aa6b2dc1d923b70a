package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.exceptions.ConcurrentTransactionException;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.StandaloneTypes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The txn versions a commit group reads: the same as Delta Standalone's, from only the commits
 * since the last read, and still part of the transaction's conflict check.
 */
class TxnVersionsTest {
  private static final Set<String> APP_IDS = Set.of("a", "b", "c");

  @TempDir Path dir;
  private final Configuration conf = new Configuration();

  /** Our log, as a commit group's; the other writer has a log of its own. */
  private DeltaLog ours;

  private DeltaLog other;
  private final TxnVersions txnVersions = new TxnVersions();

  @BeforeEach
  void setUp() {
    ours = DeltaLog.forTable(conf, dir.toUri().toString());
    other = DeltaLog.forTable(conf, dir.toUri().toString());
  }

  @Test
  void sameAsDeltaStandaloneAcrossCommitsAndCheckpoints() {
    for (int v = 0; v < 35; v++) {
      // Every version sets one or two appIds; some appIds skip versions.
      Map<String, Long> set = new HashMap<>();
      set.put(List.of("a", "b", "c").get(v % 3), (long) v);
      if (v % 4 == 0) {
        set.put("b", 1000L + v);
      }
      commitTxns(set);
      // Read after 1, 2 or 3 commits: folds one commit or several.
      if (v % 3 != 1) {
        assertEquals(standalone(), read(), "at version " + v);
      }
    }
  }

  @Test
  void readsOnlyTheCommitsSinceTheVersionItKnew() throws Exception {
    for (long v = 0; v < 4; v++) {
      commitTxns(Map.of("a", v));
    }
    assertEquals(Map.of("a", 3L, "b", -1L, "c", -1L), read());
    commitTxns(Map.of("b", 4L));
    commitTxns(Map.of("a", 5L));
    // Versions 1 and 2 no longer parse: a rebuild of the snapshot's state would have to read them.
    // (Version 3 stays: the snapshot's metadata lookup reads down to the version it knew.)
    for (int v = 1; v <= 2; v++) {
      Files.writeString(dir.resolve(String.format("_delta_log/%020d.json", v)), "not json\n");
      Files.delete(dir.resolve(String.format("_delta_log/.%020d.json.crc", v)));
    }

    assertEquals(Map.of("a", 5L, "b", 4L, "c", -1L), read());
    assertThrows(
        Exception.class,
        () -> ours.startTransaction().txnVersion("a"),
        "Standalone's own txnVersion rebuilds the snapshot's whole state");
  }

  @Test
  void aCommitFileGoneSinceItsLastReadIsTakenFromTheSnapshot() throws Exception {
    commitTxns(Map.of("a", 0L));
    commitTxns(Map.of("b", 1L));
    assertEquals(Map.of("a", 0L, "b", 1L, "c", -1L), read());
    // The other writer checkpoints version 10 (Standalone's default), and 2-9 are cleaned up.
    for (long v = 2; v <= 12; v++) {
      commitTxns(Map.of(v % 2 == 0 ? "a" : "c", v));
    }
    for (int v = 2; v <= 9; v++) {
      Files.delete(dir.resolve(String.format("_delta_log/%020d.json", v)));
    }

    assertEquals(Map.of("a", 12L, "b", 1L, "c", 11L), read());
  }

  @Test
  void aConcurrentCommitOfAnAppIdItReadFailsTheCommit() {
    commitTxns(Map.of("a", 0L));
    OptimisticTransaction txn = ours.startTransaction();
    assertEquals(Map.of("a", 0L), txnVersions.read(ours, txn, Set.of("a")));
    commitTxns(Map.of("a", 1L));

    AddFile file = AddFile.builder("f.parquet", Map.of(), 1, 0, true).build();
    assertThrows(
        ConcurrentTransactionException.class,
        () -> txn.commit(List.of(file), new Operation(Operation.Name.WRITE), "test"));
  }

  /** What a transaction of our log reads now. */
  private Map<String, Long> read() {
    return txnVersions.read(ours, ours.startTransaction(), APP_IDS);
  }

  /** What Delta Standalone's own txnVersion says, from a log opened now. */
  private Map<String, Long> standalone() {
    OptimisticTransaction txn = DeltaLog.forTable(conf, dir.toUri().toString()).startTransaction();
    Map<String, Long> versions = new HashMap<>();
    APP_IDS.forEach(id -> versions.put(id, txn.txnVersion(id)));
    return versions;
  }

  /** The other writer commits these txn versions (and the table's metadata first). */
  private void commitTxns(Map<String, Long> versions) {
    OptimisticTransaction txn = other.startTransaction();
    List<Action> actions = new ArrayList<>();
    if (txn.readVersion() < 0) {
      actions.add(
          Metadata.builder()
              .schema(
                  StandaloneTypes.of(
                      new StructType(new StructField("id", PrimitiveType.LONG, true))))
              .build());
    }
    versions.forEach((id, v) -> actions.add(new SetTransaction(id, v, Optional.of(0L))));
    txn.commit(actions, new Operation(Operation.Name.WRITE), "test");
  }
}
