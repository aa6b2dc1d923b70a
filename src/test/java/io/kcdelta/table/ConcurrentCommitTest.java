package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.Metadata;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.StandaloneTypes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committers of the sink's commit path racing on one partitioned table, each with its own DeltaLog
 * as separate workers have, through a log store whose writers exclude each other: every commit
 * lands once in a version of its own, each committer's txn is its last offset, and every version
 * due a checkpoint has one.
 */
class ConcurrentCommitTest {
  private static final int COMMITTERS = 4;
  private static final int COMMITS = 30;

  @TempDir Path dir;

  @Test
  void racingCommittersLandEveryCommitOnce() throws Exception {
    Configuration conf = new Configuration(false);
    // The store the connector uses for file:// tables (its writers exclude each other across logs).
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
    String table = dir.toUri().toString();
    createPartitionedTable(DeltaLog.forTable(conf, table));

    CyclicBarrier start = new CyclicBarrier(COMMITTERS);
    ExecutorService pool = Executors.newFixedThreadPool(COMMITTERS);
    List<SinkCommitLoop> loops = new ArrayList<>();
    List<Future<List<Long>>> versions = new ArrayList<>();
    try {
      for (int c = 0; c < COMMITTERS; c++) {
        SinkCommitLoop loop = new SinkCommitLoop(conf, table, c);
        loops.add(loop);
        versions.add(
            pool.submit(
                () -> {
                  start.await();
                  List<Long> mine = new ArrayList<>();
                  for (int i = 0; i < COMMITS; i++) {
                    mine.add(loop.commitNext());
                  }
                  return mine;
                }));
      }
      List<Long> all = new ArrayList<>();
      for (Future<List<Long>> f : versions) {
        all.addAll(f.get());
      }
      assertEquals(COMMITTERS * COMMITS, all.stream().distinct().count(), "versions " + all);
    } finally {
      pool.shutdownNow();
    }

    Snapshot snapshot = DeltaLog.forTable(conf, table).update();
    assertEquals(COMMITTERS * COMMITS, snapshot.getVersion());
    assertEquals(COMMITTERS * COMMITS, snapshot.getAllFiles().size());
    OptimisticTransaction txn = DeltaLog.forTable(conf, table).startTransaction();
    for (SinkCommitLoop loop : loops) {
      assertEquals(COMMITS - 1, txn.txnVersion(loop.appId()), loop.appId());
    }
    for (long v = 10; v <= snapshot.getVersion(); v += 10) {
      Path checkpoint = dir.resolve(String.format("_delta_log/%020d.checkpoint.parquet", v));
      assertTrue(Files.exists(checkpoint), "no checkpoint at version " + v);
    }
  }

  private static void createPartitionedTable(DeltaLog log) {
    OptimisticTransaction txn = log.startTransaction();
    txn.updateMetadata(
        Metadata.builder()
            .schema(
                StandaloneTypes.of(
                    new StructType(
                        new StructField("id", PrimitiveType.LONG, false),
                        new StructField("p", PrimitiveType.STRING))))
            .partitionColumns(List.of("p"))
            .build());
    txn.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), "test");
  }
}
