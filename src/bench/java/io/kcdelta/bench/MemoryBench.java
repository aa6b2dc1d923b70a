package io.kcdelta.bench;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.table.DeltaSinkWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One task's writer (no Kafka) with a Delta partition column of 100 values, so 100 Parquet files
 * are open at once, in a JVM started with -Xmx512m (bench.partition.columns: another partitioning,
 * e.g. {@code truncate(order_id, 20)}, a new partition value every 20 records). Records arrive in
 * batches of 500 (a consumer poll) at a simulated rate of bench.rate records/s per task (default
 * 10,000): the batch is committed every flush.interval.ms (default 60 s) of simulated time, which
 * is the most a task buffers. Prints the heap peak (and live peak after GC); an OutOfMemoryError is
 * the failure.
 */
public final class MemoryBench {
  public static void main(String[] args) throws Exception {
    long n = Long.getLong("bench.n", 1_000_000);
    long rate = Long.getLong("bench.rate", 10_000);
    long flushMs = Long.getLong("bench.flush.ms", 60_000);
    String d = System.getProperty("bench.dir");
    Path dir =
        d == null ? Files.createTempDirectory("kcdelta-mem-") : Files.createDirectories(Path.of(d));
    String table = dir.resolve("table-" + System.currentTimeMillis()).toUri().toString();
    Map<String, String> props = new HashMap<>();
    props.put("name", "memory-bench");
    props.put("topics", "bench");
    props.put("delta.table.path", table);
    String partitioning = System.getProperty("bench.partition.columns", "bucket");
    props.put("delta.table.partition.columns", partitioning);
    props.put("flush.interval.ms", String.valueOf(flushMs));
    DeltaSinkConfig config = new DeltaSinkConfig(props);
    long[] simulatedMs = {0};
    DeltaSinkWriter writer = LocalWriters.open(config, () -> simulatedMs[0]);
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
    JsonConverter converter = BenchRecords.converter();
    long peakAfterGc = 0;
    long t0 = System.nanoTime();
    int batch = 500;
    for (long id = 0; id < n; id += batch) {
      List<SinkRecord> records = new ArrayList<>(batch);
      for (long i = id; i < Math.min(n, id + batch); i++) {
        SchemaAndValue v = converter.toConnectData("bench", BenchRecords.json(i));
        records.add(new SinkRecord("bench", 0, null, null, v.schema(), v.value(), i));
      }
      simulatedMs[0] = id * 1000 / rate;
      writer.put(records);
      peakAfterGc = Math.max(peakAfterGc, afterGc());
    }
    simulatedMs[0] += flushMs;
    writer.put(List.of());
    long secs = (System.nanoTime() - t0) / 1_000_000_000L;
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    long max = Runtime.getRuntime().maxMemory();
    System.out.printf(
        Locale.ROOT,
        "[memory] %,d records (payload ~1.1 KB) partitioned by %s, one task, "
            + "flush.interval.ms=%d at a simulated %,d records/s (up to %,d records buffered), -Xmx %d MB: "
            + "completed in %d s; heap peak %d MB (sum of pool peaks), live peak after GC %d MB -> %s%n",
        n,
        partitioning,
        flushMs,
        rate,
        Math.min(n, flushMs * rate / 1000),
        max >> 20,
        secs,
        peak >> 20,
        peakAfterGc >> 20,
        max <= 512L << 20
            ? "under 512 MB (no OutOfMemoryError)"
            : "heap limit above 512 MB, run with -Xmx512m");
    writer.stop();
  }

  private static long afterGc() {
    long used = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
        used += p.getCollectionUsage().getUsed();
      }
    }
    return used;
  }
}
