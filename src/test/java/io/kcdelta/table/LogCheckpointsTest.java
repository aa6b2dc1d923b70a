package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Metadata;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.table.DeltaCommitter.Committed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints of a commit group's table: written by the group's executor, not inside commits. */
class LogCheckpointsTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final StructType SCHEMA =
      new StructType(new StructField[] {new StructField("id", PrimitiveType.LONG, true)});

  @TempDir Path dir;
  private String table;
  private DeltaSinkConfig config;
  private Configuration conf;

  /** The checkpoint work handed to the executor and not run yet. */
  private final Queue<Runnable> handedOff = new ArrayDeque<>();

  private CommitGroup group;
  private long offset;

  @BeforeEach
  void setUp() {
    table = dir.resolve("t").toUri().toString();
    config =
        new DeltaSinkConfig(
            Map.of("name", "sink", "delta.table.path", table, "flush.interval.ms", "1000"));
    conf = HadoopConfigurationFactory.create(config);
    group = new CommitGroups(handedOff::add).join(this, table, conf, config);
  }

  /** One batch of one file and the next offset, committed alone; returns its version. */
  private long commit() {
    org.apache.hadoop.fs.Path file =
        new org.apache.hadoop.fs.Path(new org.apache.hadoop.fs.Path(table), "f" + offset);
    Batch batch =
        new Batch(
            List.of(new PendingFile(new DataFile(file, 100, 1, "{\"numRecords\":1}"), Map.of())),
            Map.of(TP, offset),
            SCHEMA,
            List.of());
    CommitGroup.Entry entry = group.handIn(this, batch, Map.of(TP, offset - 1), 0);
    offset++;
    return assertInstanceOf(Committed.class, group.commitNow(entry)).version();
  }

  private List<Long> checkpointVersions() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("t/_delta_log"))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".checkpoint.parquet"))
          .map(n -> Long.parseLong(n.substring(0, n.indexOf('.'))))
          .sorted()
          .toList();
    }
  }

  private void runHandedOff() {
    while (!handedOff.isEmpty()) {
      handedOff.poll().run();
    }
  }

  @Test
  void theCheckpointOfTheTenthVersionIsWrittenByTheExecutorNotInTheCommit() throws Exception {
    offset = 0;
    while (commit() < 10) {}

    assertEquals(List.of(), checkpointVersions(), "nothing written inside the commit");
    assertEquals(1, handedOff.size());
    runHandedOff();

    assertEquals(List.of(10L), checkpointVersions());
    String last = Files.readString(dir.resolve("t/_delta_log/_last_checkpoint"));
    assertTrue(last.contains("\"version\":10"), last);
    // A reader that starts from the checkpoint sees every file.
    assertEquals(11, DeltaLog.forTable(new Configuration(), table).snapshot().getAllFiles().size());
  }

  @Test
  void checkpointsDueWhileOneWaitsMergeIntoTheNewest() throws Exception {
    offset = 0;
    while (commit() < 25) {}

    assertEquals(1, handedOff.size(), "version 20 joined the wait of version 10");
    runHandedOff();

    assertEquals(List.of(20L), checkpointVersions());
  }

  @Test
  void theTablesCheckpointIntervalIsHonoured() throws Exception {
    offset = 0;
    commit();
    setProperty("delta.checkpointInterval", "3");
    // Versions 0 and 1 are in the table; the group commits 2..9.
    for (int i = 0; i < 8; i++) {
      commit();
      runHandedOff();
    }

    assertEquals(List.of(3L, 6L, 9L), checkpointVersions());
  }

  @Test
  void expiredLogFilesAreCleanedUpAsTheTablesCurrentPropertiesSay() throws Exception {
    offset = 0;
    while (commit() < 10) {}
    runHandedOff();
    // Set after the checkpoint writer was opened: 1 day instead of the default 30.
    setProperty("delta.logRetentionDuration", "interval 1 day");
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(3)));
    for (int v = 0; v <= 10; v++) {
      Files.setLastModifiedTime(dir.resolve(String.format("t/_delta_log/%020d.json", v)), old);
    }
    Files.setLastModifiedTime(
        dir.resolve("t/_delta_log/00000000000000000010.checkpoint.parquet"), old);
    while (commit() < 20) {}
    runHandedOff();

    assertFalse(Files.exists(dir.resolve("t/_delta_log/00000000000000000000.json")));
    // Every file the group committed is still in the table, read from checkpoint 20 on.
    assertEquals(
        offset, DeltaLog.forTable(new Configuration(), table).update().getAllFiles().size());
  }

  private void setProperty(String key, String value) {
    OptimisticTransaction txn = DeltaLog.forTable(new Configuration(), table).startTransaction();
    Metadata m = txn.metadata();
    Map<String, String> properties = new java.util.HashMap<>(m.getConfiguration());
    properties.put(key, value);
    txn.updateMetadata(m.copyBuilder().configuration(properties).build());
    txn.commit(
        List.of(),
        new io.delta.standalone.Operation(io.delta.standalone.Operation.Name.SET_TABLE_PROPERTIES),
        "test");
  }

  @Test
  void aFailedCheckpointLeavesTheCommitsAloneAndTheNextOneIsWritten() throws Exception {
    offset = 0;
    commit();
    // _last_checkpoint cannot be written where a directory is.
    Files.createDirectories(dir.resolve("t/_delta_log/_last_checkpoint/x"));
    while (commit() < 10) {}
    runHandedOff();
    assertFalse(Files.isRegularFile(dir.resolve("t/_delta_log/_last_checkpoint")));

    Files.delete(dir.resolve("t/_delta_log/_last_checkpoint/x"));
    Files.delete(dir.resolve("t/_delta_log/_last_checkpoint"));
    while (commit() < 20) {}
    runHandedOff();

    assertTrue(
        Files.readString(dir.resolve("t/_delta_log/_last_checkpoint")).contains("\"version\":20"));
    assertEquals(21, DeltaLog.forTable(new Configuration(), table).update().getAllFiles().size());
  }
}
