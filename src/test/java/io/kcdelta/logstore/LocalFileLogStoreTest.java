package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.storage.LogStore;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import java.io.FileNotFoundException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers of a {@code file://} table, each with a store of its own (as each DeltaLog has, and each
 * worker JVM), race for the same versions: every version has exactly one writer.
 */
class LocalFileLogStoreTest {
  private static final int WRITERS = 16;
  private static final int VERSIONS = 100;

  @TempDir java.nio.file.Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void storesRacingForEachVersionGiveItToExactlyOneWriter() throws Exception {
    Configuration conf = HadoopConfigurationFactory.create(config(dir.toUri().toString()));
    java.nio.file.Path logDir = Files.createDirectories(dir.resolve("_delta_log"));
    Map<Long, String> winnerOf = new ConcurrentHashMap<>();
    CyclicBarrier together = new CyclicBarrier(WRITERS);
    List<Future<?>> writers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    for (int w = 0; w < WRITERS; w++) {
      String writer = "w" + w;
      writers.add(
          pool.submit(
              () -> {
                LogStore store = newStore(conf);
                for (long v = 0; v < VERSIONS; v++) {
                  together.await();
                  Path file = new Path(logDir.toUri().toString(), String.format("%020d.json", v));
                  try {
                    store.write(file, List.of(writer + " " + v).iterator(), false, conf);
                    String previous = winnerOf.putIfAbsent(v, writer);
                    assertNull(
                        previous, "version " + v + " written by " + previous + " and " + writer);
                  } catch (FileAlreadyExistsException lost) {
                    // another writer has this version
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : writers) {
      f.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();

    assertEquals(VERSIONS, winnerOf.size(), "every version has a writer");
    for (Map.Entry<Long, String> e : winnerOf.entrySet()) {
      assertEquals(
          e.getValue() + " " + e.getKey() + "\n",
          Files.readString(logDir.resolve(String.format("%020d.json", e.getKey()))),
          "version " + e.getKey() + " holds its writer's actions");
    }
    try (var temps = Files.list(logDir.resolve(".tmp"))) {
      assertEquals(List.of(), temps.toList(), "no temp file is left behind");
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void deltaLogsOfOneTableAppendingAtOnceLandEveryCommitOnce() throws Exception {
    String tablePath = dir.toUri().toString();
    Configuration conf = HadoopConfigurationFactory.create(config(tablePath));
    LogStoreTestSupport.createDeltaTable(conf, tablePath);
    LogStoreTestSupport.raceAppendsAndCheckEachLandedOnce(conf, tablePath, 8, 10);
  }

  @Test
  void overwriteReplacesAndAMissingLogDirectoryIsNotCreated() throws Exception {
    Configuration conf = HadoopConfigurationFactory.create(config(dir.toUri().toString()));
    LogStore store = newStore(conf);
    Path missing = new Path(dir.resolve("none/_delta_log/00000000000000000000.json").toUri());
    assertThrows(FileNotFoundException.class, () -> store.write(missing, lines("a"), false, conf));

    java.nio.file.Path logDir = Files.createDirectories(dir.resolve("_delta_log"));
    Path checkpoint = new Path(logDir.resolve("_last_checkpoint").toUri());
    // Written by another writer through Hadoop's local file system, which leaves a checksum file.
    try (var out = org.apache.hadoop.fs.FileSystem.getLocal(conf).create(checkpoint, true)) {
      out.write("{\"version\":10}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    assertTrue(Files.exists(logDir.resolve("._last_checkpoint.crc")));
    store.write(checkpoint, lines("{\"version\":20}"), true, conf);
    assertEquals("{\"version\":20}\n", Files.readString(logDir.resolve("_last_checkpoint")));
    assertEquals(
        "{\"version\":20}\n",
        LogStoreTestSupport.read(conf, checkpoint),
        "read through Hadoop's checksummed local file system");
    assertThrows(
        FileAlreadyExistsException.class,
        () -> store.write(checkpoint, lines("{\"version\":30}"), false, conf));
    assertEquals("{\"version\":20}\n", Files.readString(logDir.resolve("_last_checkpoint")));
  }

  /**
   * A reader in another process lists the log while a checkpoint is written: the checkpoint file
   * must appear whole (the store says partial writes are visible, so Delta Standalone writes it to
   * a temp file and renames it). The reader here polls for the file and reads its footer each time
   * it sees it.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aCheckpointAppearsWhole() throws Exception {
    String tablePath = dir.toUri().toString();
    Configuration conf = HadoopConfigurationFactory.create(config(tablePath));
    LogStoreTestSupport.createDeltaTable(conf, tablePath);
    io.delta.standalone.DeltaLog log = io.delta.standalone.DeltaLog.forTable(conf, tablePath);
    List<io.delta.standalone.actions.Action> adds = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      adds.add(io.delta.standalone.actions.AddFile.builder("f" + i, Map.of(), 1, 1, true).build());
    }
    log.startTransaction()
        .commit(
            adds, new io.delta.standalone.Operation(io.delta.standalone.Operation.Name.WRITE), "t");
    java.nio.file.Path checkpoint =
        dir.resolve("_delta_log/00000000000000000001.checkpoint.parquet");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> writing =
          pool.submit(() -> ((io.delta.standalone.internal.DeltaLogImpl) log).checkpoint());
      int reads = 0;
      while (!writing.isDone()) {
        if (Files.exists(checkpoint)) {
          try (var reader =
              org.apache.parquet.hadoop.ParquetFileReader.open(
                  org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                      new Path(checkpoint.toUri()), conf))) {
            reads++;
          } catch (java.io.FileNotFoundException renamedAway) {
            // A checksum or temp file moved under us: nothing was read.
          }
        }
      }
      writing.get();
      assertTrue(Files.exists(checkpoint));
      System.out.println("checkpoint footer reads while it was written: " + reads);
    } finally {
      pool.shutdownNow();
    }
  }

  private static LogStore newStore(Configuration conf) {
    assertEquals(
        LocalFileLogStore.class.getName(),
        conf.get(LocalFileLogStore.LOG_STORE_FILE_IMPL),
        "the connector's configuration selects this store for file:// tables");
    return new LocalFileLogStore(conf);
  }

  private static Iterator<String> lines(String... lines) {
    return List.of(lines).iterator();
  }

  private static DeltaSinkConfig config(String tablePath) {
    return new DeltaSinkConfig(Map.of("name", "local-store-test", "delta.table.path", tablePath));
  }
}
