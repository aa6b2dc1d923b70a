package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committers of the sink's commit path racing on one table through a shared log store, each with
 * its DeltaLog and appender as a worker JVM has: every commit lands once, in a version of its own,
 * and every version due a checkpoint has one (the appender leaves those versions to Delta
 * Standalone, which writes it).
 */
class ConcurrentAppendTest {
  private static final int COMMITTERS = 4;
  private static final int COMMITS = 30;

  @TempDir Path dir;

  @Test
  void racingCommittersLandEveryCommitOnceAndCheckpointsStayOnTime() throws Exception {
    AppendFixture table = new AppendFixture(dir, Map.of());
    CyclicBarrier start = new CyclicBarrier(COMMITTERS);
    ExecutorService pool = Executors.newFixedThreadPool(COMMITTERS);
    List<Future<List<Long>>> versions = new ArrayList<>();
    try {
      for (int c = 0; c < COMMITTERS; c++) {
        SinkCommitLoop loop = new SinkCommitLoop(table.conf, table.root.toString(), c, true);
        assertTrue(loop.appends());
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

    Snapshot snapshot = table.newLog().update();
    assertEquals(COMMITTERS * COMMITS, snapshot.getVersion());
    assertEquals(COMMITTERS * COMMITS, snapshot.getAllFiles().size());
    OptimisticTransaction txn = table.newLog().startTransaction();
    for (int c = 0; c < COMMITTERS; c++) {
      assertEquals(COMMITS - 1, txn.txnVersion("bench-bench-" + c));
    }
    int appended = 0;
    int rebased = 0;
    ObjectMapper json = new ObjectMapper();
    for (long v = 1; v <= snapshot.getVersion(); v++) {
      String info = Files.readAllLines(commitFile(v)).get(0);
      JsonNode commitInfo = json.readTree(info).get("commitInfo");
      if (!commitInfo.get("engineInfo").asText().contains("Delta-Standalone")) {
        appended++;
        rebased += commitInfo.get("readVersion").asLong() < v - 1 ? 1 : 0;
        assertTrue(v % 10 != 0, "version " + v + " is due a checkpoint but was appended");
      }
      if (v % 10 == 0) {
        assertTrue(
            Files.exists(dir.resolve(String.format("_delta_log/%020d.checkpoint.parquet", v))),
            "no checkpoint at version " + v);
      }
    }
    System.out.printf(
        "%d versions: %d appended (%d of them rebased), %d by Delta Standalone%n",
        snapshot.getVersion(), appended, rebased, snapshot.getVersion() - appended);
    assertTrue(appended > 0, "no commit took the appender's path");
  }

  private Path commitFile(long version) {
    return dir.resolve(String.format("_delta_log/%020d.json", version));
  }
}
