package io.kcdelta.bench;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.upsert.KeyIndex;
import io.kcdelta.table.DeltaSinkWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Upsert mode against appending, on the task's own path (DeltaSinkWriter.put into a local table, no
 * Kafka): a table of N rows (keys 0..N-1, loaded in upsert mode), then C changes with random keys
 * (70% updates of existing keys, 10% deletes, 20% inserts of new keys), committed every F records;
 * the same C records appended to a table of their own for comparison. Prints rows/s (wall and task
 * CPU), per commit the files searched, files whose deletion vectors changed and the put() latency
 * of commits, and how that grows with N.
 */
public final class UpsertBench {
  public static void main(String[] args) throws Exception {
    long[] sizes =
        Arrays.stream(System.getProperty("bench.upsert.rows", "200000,2000000").split(","))
            .mapToLong(s -> Long.parseLong(s.trim()))
            .toArray();
    int changes = Integer.getInteger("bench.upsert.changes", 200_000);
    int flushRecords = Integer.getInteger("bench.flush.records", 20_000);
    List<Struct> templates = BenchRecords.structs(0, 10_000);
    String d = System.getProperty("bench.dir");
    Path dir =
        d == null
            ? Files.createTempDirectory("kcdelta-upsert-")
            : Files.createDirectories(Path.of(d));
    for (long size : sizes) {
      String table = dir.resolve("upsert-" + size).toUri().toString();
      List<SinkRecord> load = new ArrayList<>();
      for (long id = 0; id < size; id++) {
        load.add(record(templates, id, id, false));
      }
      Run loaded = run(table, true, load, 200_000);
      load = null;
      SplittableRandom random = new SplittableRandom(7);
      List<SinkRecord> stream = new ArrayList<>(changes);
      long next = size;
      for (int i = 0; i < changes; i++) {
        int r = random.nextInt(100);
        long offset = size + i;
        if (r < 70) {
          stream.add(record(templates, random.nextLong(size), offset, false));
        } else if (r < 80) {
          stream.add(record(templates, random.nextLong(size), offset, true));
        } else {
          stream.add(record(templates, next++, offset, false));
        }
      }
      long filesRead0 = KeyIndex.jvm().filesRead();
      long version0 = new TableLog(table, new Configuration(), "bench").update().version();
      Run upsert = run(table, true, stream, flushRecords);
      long filesRead = KeyIndex.jvm().filesRead() - filesRead0;
      String appendTable = dir.resolve("append-" + size).toUri().toString();
      Run append = run(appendTable, false, stream, flushRecords);
      TableLog log = new TableLog(table, new Configuration(), "bench");
      List<LogCommit> commits = log.commits(version0 + 1, log.update().version());
      int marked = 0;
      int commitsWithData = 0;
      for (LogCommit c : commits) {
        marked += c.removes().size();
        commitsWithData += c.adds().stream().anyMatch(AddFile::dataChange) ? 1 : 0;
      }
      System.out.printf(
          Locale.ROOT,
          "[upsert] table of %,d rows (loaded at %,.0f rows/s), %,d changes (70%% updates, 10%%"
              + " deletes, 20%% inserts), a commit per %,d:%n"
              + "[upsert]   upsert: %,.0f rows/s wall, %.2f us task CPU/row; append of the same"
              + " records: %,.0f rows/s wall, %.2f us task CPU/row; upsert / append = %.2f (wall)%n"
              + "[upsert]   %d commits: %.1f files with a changed deletion vector per commit, %,d"
              + " files read from storage for keys in all (the rest from memory); put() with a"
              + " commit p50 %.0f ms, p99 %.0f ms (append p99 %.0f ms)%n",
          size,
          loaded.rowsPerSecond(),
          changes,
          flushRecords,
          upsert.rowsPerSecond(),
          upsert.cpuNanos / 1e3 / changes,
          append.rowsPerSecond(),
          append.cpuNanos / 1e3 / changes,
          upsert.rowsPerSecond() / append.rowsPerSecond(),
          commitsWithData,
          commitsWithData == 0 ? 0 : (double) marked / commitsWithData,
          filesRead,
          upsert.commitPutMs(0.5),
          upsert.commitPutMs(0.99),
          append.commitPutMs(0.99));
    }
    System.exit(0);
  }

  private static SinkRecord record(List<Struct> templates, long id, long offset, boolean delete) {
    if (delete) {
      return new SinkRecord("bench", 0, Schema.INT64_SCHEMA, id, null, null, offset);
    }
    Struct template = templates.get((int) (offset % templates.size()));
    Struct row = new Struct(template.schema());
    for (Field f : template.schema().fields()) {
      row.put(f, template.get(f));
    }
    row.put("order_id", id);
    return new SinkRecord("bench", 0, Schema.INT64_SCHEMA, id, row.schema(), row, offset);
  }

  private record Run(long records, long wallNanos, long cpuNanos, long[] commitPutNanos) {
    double rowsPerSecond() {
      return records / (wallNanos / 1e9);
    }

    double commitPutMs(double quantile) {
      if (commitPutNanos.length == 0) {
        return 0;
      }
      long[] sorted = commitPutNanos.clone();
      Arrays.sort(sorted);
      return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1e6;
    }
  }

  /** Puts the records in batches of 500, committing every {@code flushRecords}; times it all. */
  private static Run run(String table, boolean upsert, List<SinkRecord> records, int flushRecords)
      throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put("name", "upsertbench");
    props.put("topics", "bench");
    props.put("delta.table.path", table);
    props.put("flush.interval.ms", "1000");
    if (upsert) {
      props.put("delta.write.mode", "upsert");
      props.put("delta.upsert.key.columns", "order_id");
    }
    DeltaSinkConfig config = new DeltaSinkConfig(props);
    long[] clock = {0};
    DeltaSinkWriter writer = LocalWriters.open(config, () -> clock[0]);
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    List<Long> commitPuts = new ArrayList<>();
    List<SinkRecord> batch = new ArrayList<>(500);
    for (int i = 0; i < records.size(); i++) {
      batch.add(records.get(i));
      if (batch.size() == 500 || i == records.size() - 1) {
        long due = (i + 1) / flushRecords * 1000L;
        boolean commits = due > clock[0] || i == records.size() - 1;
        clock[0] = i == records.size() - 1 ? clock[0] + 1000 : due;
        long t0 = System.nanoTime();
        writer.put(batch);
        if (commits) {
          commitPuts.add(System.nanoTime() - t0);
        }
        batch = new ArrayList<>(500);
      }
    }
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    long wall = System.nanoTime() - wall0;
    writer.stop();
    return new Run(
        records.size(), wall, cpu, commitPuts.stream().mapToLong(Long::longValue).toArray());
  }
}
