package io.kcdelta.logstore;

import static io.kcdelta.logstore.LogStoreTestSupport.deltaFile;
import static io.kcdelta.logstore.LogStoreTestSupport.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * JVMs append concurrently to one table: the log store (DynamoDB, or S3's conditional create), not
 * a JVM lock, keeps them apart.
 */
class LogStoreMultiProcessIT {

  private static final int PROCESSES = 3;

  /** 50 per the brief; {@code -Dkcdelta.it.multiprocess.commits} lowers it on a crowded machine. */
  private static final int COMMITS = Integer.getInteger("kcdelta.it.multiprocess.commits", 50);

  private static final String DDB_TABLE = "delta_log_multiprocess";

  /** Three JVMs, one committer each, through the DynamoDB store. */
  @Test
  void concurrentProcessesCommitEveryVersionExactlyOnce() throws Exception {
    race(DynamoDbLogStore.class, PROCESSES, 1, COMMITS);
  }

  /** 16 committers in 4 JVMs (4 threads each, a DeltaLog each) through the s3-conditional store. */
  @Test
  void sixteenCommittersInFourProcessesThroughConditionalCreates() throws Exception {
    race(S3ConditionalLogStore.class, 4, 4, Math.max(1, COMMITS / 4));
  }

  private void race(Class<?> store, int processCount, int threads, int commits) throws Exception {
    // Under target/ rather than a @TempDir: the writers' logs are what one reads after a failure.
    Path dir =
        Files.createDirectories(
            Path.of("target", "multiprocess-it", Long.toString(System.currentTimeMillis())));
    try (Dynalite ddb = Dynalite.inMemory();
        S3Proxy s3 = S3Proxy.inMemory()) {
      Configuration conf = LogStoreTestSupport.conf(s3, ddb, DDB_TABLE);
      conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, store.getName());
      conf.setBoolean(S3ConditionalLogStore.S3A_CONDITIONAL_ENABLED, true);
      String tablePath = LogStoreTestSupport.uniqueTablePath(s3);
      LogStoreTestSupport.createDeltaTable(conf, tablePath);

      List<Process> processes = new ArrayList<>();
      List<Path> outputs = new ArrayList<>();
      for (int p = 0; p < processCount; p++) {
        Path out = dir.resolve("writer-" + p + ".versions");
        outputs.add(out);
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx384m", "-XX:+UseSerialGC"));
        String extra =
            System.getProperty("kcdelta.it.child.jvmArgs", "").replace("{n}", Integer.toString(p));
        if (!extra.isBlank()) {
          cmd.addAll(List.of(extra.trim().split("\\s+")));
        }
        cmd.addAll(
            List.of(
                "-cp",
                System.getProperty("java.class.path"),
                MultiProcessCommitter.class.getName(),
                s3.endpoint().toString(),
                ddb.endpoint().toString(),
                DDB_TABLE,
                tablePath,
                "w" + p,
                Integer.toString(commits),
                out.toAbsolutePath().toString(),
                store.getName(),
                Integer.toString(threads)));
        processes.add(
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("writer-" + p + ".log").toFile())
                .start());
      }
      for (int p = 0; p < processCount; p++) {
        Process proc = processes.get(p);
        Path log = dir.resolve("writer-" + p + ".log");
        if (!proc.waitFor(10, TimeUnit.MINUTES)) {
          processes.forEach(Process::destroyForcibly);
          throw new AssertionError("writer " + p + " did not finish in time");
        }
        assertEquals(0, proc.exitValue(), () -> "writer failed:\n" + tail(log));
      }

      Map<Long, String> winnerOf = new TreeMap<>();
      for (Path out : outputs) {
        List<String> lines = Files.readAllLines(out);
        assertEquals(commits * threads, lines.size(), out.toString());
        for (String line : lines) {
          String[] parts = line.split(" ");
          String previous = winnerOf.put(Long.parseLong(parts[0]), parts[1]);
          assertNull(previous, "version " + parts[0] + " reported by two writers");
        }
      }
      int total = processCount * threads * commits;
      Set<Long> expectedVersions = new HashSet<>();
      for (long v = 1; v <= total; v++) {
        expectedVersions.add(v);
      }
      assertEquals(expectedVersions, winnerOf.keySet(), "versions 1.." + total + " contiguous");
      for (Map.Entry<Long, String> e : winnerOf.entrySet()) {
        assertTrue(
            read(conf, deltaFile(tablePath, e.getKey()))
                .contains("\"path\":\"" + e.getValue() + "\""),
            "version " + e.getKey() + " was overwritten: it lacks " + e.getValue());
      }
      DeltaLog log = DeltaLog.forTable(conf, tablePath);
      assertEquals(total, log.update().getVersion());
      Set<String> files =
          log.snapshot().getAllFiles().stream().map(AddFile::getPath).collect(Collectors.toSet());
      assertEquals(
          Set.copyOf(winnerOf.values()), files, "every process's files are in the snapshot");
    }
  }

  private static String javaBin() {
    return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (Exception e) {
      return "(no log: " + e + ")";
    }
  }
}
