package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.storage.LocalLogStore;
import io.kcdelta.config.HadoopConfigurationFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogAppenderTest {
  private static final String APP = "sink-orders-0";

  @TempDir java.nio.file.Path dir;

  @Test
  void landsAtTheNextVersionAndReadsBackThroughDeltaStandalone() {
    AppendFixture table = new AppendFixture(dir, Map.of());
    DeltaLog log = table.newLog();
    OptimisticTransaction txn = log.startTransaction();

    LogAppender.Result result = append(table, log, txn, "p=a/f1.parquet", "a", 4);

    assertEquals(new LogAppender.Landed(1, 0), result);
    Snapshot snapshot = table.newLog().update();
    assertEquals(1, snapshot.getVersion());
    assertEquals(Map.of("p=a/f1.parquet", "a"), files(snapshot));
    assertEquals(4, table.newLog().startTransaction().txnVersion(APP));
    AddFile file = snapshot.getAllFiles().get(0);
    assertEquals("{\"numRecords\":3,\"minValues\":{\"id\":1}}", file.getStats());
    assertEquals(1234, file.getSize());
  }

  @Test
  void rebasesOverOtherWritersAppendsWithoutReadingTheTableAgain() {
    AppendFixture table = new AppendFixture(dir, Map.of());
    DeltaLog log = table.newLog();
    OptimisticTransaction txn = log.startTransaction();
    table.commitElsewhere(AppendFixture.append("p=b/g1.parquet", "b", "sink-orders-1", 1));
    table.commitElsewhere(AppendFixture.append("p=b/g2.parquet", null, "sink-orders-1", 2));

    LogAppender.Result result = append(table, log, txn, "p=a/f1.parquet", "a", 4);

    assertEquals(new LogAppender.Landed(3, 1), result);
    Snapshot snapshot = table.newLog().update();
    assertEquals(3, snapshot.getVersion());
    assertEquals(
        Set.of("p=a/f1.parquet", "p=b/g1.parquet", "p=b/g2.parquet"), files(snapshot).keySet());
    OptimisticTransaction after = table.newLog().startTransaction();
    assertEquals(4, after.txnVersion(APP));
    assertEquals(2, after.txnVersion("sink-orders-1"));
    // The DeltaLog that appended is not the table's snapshot any more, but its next one is.
    assertEquals(3, log.startTransaction().readVersion());
  }

  @Test
  void stopsWhenAnotherWriterCommitsItsAppId() {
    AppendFixture table = new AppendFixture(dir, Map.of());
    DeltaLog log = table.newLog();
    OptimisticTransaction txn = log.startTransaction();
    table.commitElsewhere(AppendFixture.append("p=b/g1.parquet", "b", "sink-orders-1", 1));
    table.commitElsewhere(AppendFixture.append("p=a/z.parquet", "a", APP, 9));

    LogAppender.Result result = append(table, log, txn, "p=a/f1.parquet", "a", 4);

    LogAppender.Stale stale = assertInstanceOf(LogAppender.Stale.class, result);
    assertEquals(2, stale.version());
    assertTrue(stale.why().contains(APP), stale.why());
    assertEquals(2, table.newLog().update().getVersion());
    assertEquals(9, table.newLog().startTransaction().txnVersion(APP));
  }

  @Test
  void stopsWhenAnotherWriterChangesTheMetadata() {
    AppendFixture table = new AppendFixture(dir, Map.of());
    DeltaLog log = table.newLog();
    OptimisticTransaction txn = log.startTransaction();
    OptimisticTransaction other = table.newLog().startTransaction();
    other.updateMetadata(
        other.metadata().copyBuilder().configuration(Map.of("owner", "someone")).build());
    other.commit(List.of(), AppendFixture.write(), "foreign");

    LogAppender.Result result = append(table, log, txn, "p=a/f1.parquet", "a", 4);

    LogAppender.Stale stale = assertInstanceOf(LogAppender.Stale.class, result);
    assertEquals(1, stale.version());
    assertTrue(stale.why().contains("metadata"), stale.why());
    assertEquals(1, table.newLog().update().getVersion());
  }

  @Test
  void leavesVersionsDueACheckpointToDeltaStandalone() {
    AppendFixture table = new AppendFixture(dir, Map.of("delta.checkpointInterval", "3"));
    DeltaLog log = table.newLog();
    table.commitElsewhere(AppendFixture.append("p=b/g1.parquet", "b", "sink-orders-1", 1));
    OptimisticTransaction txn = log.startTransaction();
    LogAppender appender = LogAppender.forTable(log, table.conf, table.root);
    assertEquals(1, txn.readVersion());
    assertTrue(appender.takes(txn));
    table.commitElsewhere(AppendFixture.append("p=b/g2.parquet", "b", "sink-orders-1", 2));

    LogAppender.Result result = append(table, log, txn, "p=a/f1.parquet", "a", 4);

    LogAppender.Stale stale = assertInstanceOf(LogAppender.Stale.class, result);
    assertEquals(3, stale.version());
    assertEquals(2, table.newLog().update().getVersion());
    assertFalse(appender.takes(log.startTransaction()));
  }

  @Test
  void takesNoCommitToATableThatDoesNotExistYet() throws Exception {
    AppendFixture table = new AppendFixture(dir, Map.of());
    Configuration conf = new Configuration(table.conf);
    org.apache.hadoop.fs.Path empty = new org.apache.hadoop.fs.Path(dir.resolve("none").toUri());
    DeltaLog log = DeltaLog.forTable(conf, empty);
    LogAppender appender = LogAppender.forTable(log, conf, empty);
    assertNotNull(appender);
    assertFalse(appender.takes(log.startTransaction()));
  }

  @Test
  void appendsOnlyThroughALogStoreListedAsShared() {
    AppendFixture table = new AppendFixture(dir, Map.of());
    DeltaLog log = table.newLog();
    assertNotNull(LogAppender.forTable(log, table.conf, table.root));

    Configuration unlisted = new Configuration(table.conf);
    unlisted.unset(HadoopConfigurationFactory.SHARED_LOG_STORES);
    assertNull(LogAppender.forTable(log, unlisted, table.root));

    Configuration otherStore = new Configuration(table.conf);
    otherStore.set("delta.logStore.file.impl", LocalLogStore.class.getName());
    assertNull(LogAppender.forTable(log, otherStore, table.root));

    Configuration storeClass = new Configuration(table.conf);
    storeClass.set("delta.logStore.class", ExclusiveLocalLogStore.class.getName());
    assertNull(LogAppender.forTable(log, storeClass, table.root));
  }

  private static LogAppender.Result append(
      AppendFixture table, DeltaLog log, OptimisticTransaction txn, String file, String p, long v) {
    txn.txnVersion(APP);
    List<Action> actions = AppendFixture.append(file, p, APP, v);
    List<String> lines =
        AppendCommitFile.lines(
            actions, AppendFixture.write(), txn.readVersion(), DeltaCommitter.ENGINE_INFO, 1L);
    return LogAppender.forTable(log, table.conf, table.root).append(txn, lines, Set.of(APP));
  }

  private static Map<String, String> files(Snapshot snapshot) {
    return snapshot.getAllFiles().stream()
        .collect(
            Collectors.toMap(
                AddFile::getPath,
                f -> String.valueOf(f.getPartitionValues().get("p")),
                (a, b) -> a,
                TreeMap::new));
  }
}
