package io.kcdelta.bench;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.table.DeltaSinkWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Our task's own path without Kafka or the converter: SinkRecords (Structs converted in advance)
 * through DeltaSinkWriter.put into a local Delta table, commits every bench.flush.records records.
 * Measured in CPU time of the task thread (robust on a loaded machine) and wall time; before/after
 * figure for fixes.
 */
public final class TaskPathBench {
  public static void main(String[] args) throws Exception {
    int distinct = Integer.getInteger("bench.distinct", 20_000);
    long n = Long.getLong("bench.n", 400_000);
    long flushRecords = Long.getLong("bench.flush.records", 100_000);
    int rounds = Integer.getInteger("bench.rounds", 3);
    List<Struct> structs = BenchRecords.structs(0, distinct);
    String d = System.getProperty("bench.dir");
    Path dir =
        d == null
            ? Files.createTempDirectory("kcdelta-taskpath-")
            : Files.createDirectories(Path.of(d));
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int round = 0; round < rounds; round++) {
      Map<String, String> props = new HashMap<>();
      props.put("name", "taskpath");
      props.put("topics", "bench");
      props.put("delta.table.path", dir.resolve("t" + System.nanoTime()).toUri().toString());
      props.put("flush.interval.ms", "1000");
      DeltaSinkConfig config = new DeltaSinkConfig(props);
      long[] clock = {0};
      DeltaSinkWriter writer = LocalWriters.open(config, () -> clock[0]);
      long cpu0 = threads.getCurrentThreadCpuTime();
      long alloc0 = threads.getCurrentThreadAllocatedBytes();
      long wall0 = System.nanoTime();
      List<SinkRecord> batch = new ArrayList<>(500);
      for (long off = 0; off < n; off++) {
        Struct s = structs.get((int) (off % distinct));
        batch.add(new SinkRecord("bench", 0, null, null, s.schema(), s, off));
        if (batch.size() == 500) {
          clock[0] = (off + 1) / flushRecords * 1000;
          writer.put(batch);
          batch = new ArrayList<>(500);
        }
      }
      clock[0] += 1000;
      writer.put(batch);
      long cpu = threads.getCurrentThreadCpuTime() - cpu0;
      long alloc = threads.getCurrentThreadAllocatedBytes() - alloc0;
      long wall = System.nanoTime() - wall0;
      writer.stop();
      System.out.printf(
          Locale.ROOT,
          "[taskpath] round %d: %,d records, %.2f us CPU/record (%,.0f records per CPU-s), "
              + "wall %,.0f records/s, %,d B allocated/record%n",
          round,
          n,
          cpu / 1e3 / n,
          n / (cpu / 1e9),
          n / (wall / 1e9),
          alloc / n);
    }
    System.exit(0);
  }
}
