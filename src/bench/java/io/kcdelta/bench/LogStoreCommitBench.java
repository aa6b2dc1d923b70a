package io.kcdelta.bench;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.kcdelta.delta.TableLog;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import io.kcdelta.logstore.S3ConditionalLogStore;
import io.kcdelta.table.SinkCommitLoop;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;

/**
 * Commit throughput and latency of blind appends through each log store ({@code bench.stores}:
 * {@link DynamoDbLogStore} on dynalite + s3proxy, {@link S3ConditionalLogStore} on s3proxy alone;
 * loopback, one machine): 1, 4 and 16 concurrent committers, each with its own DeltaLog, on one
 * table. Latency is start-transaction to commit-returned, rebases included. Three paths, each on a
 * table of its own: {@code standalone} is Delta Standalone's commit of one file; {@code sink} is
 * the connector's as separate worker JVMs would run it (a commit group of its own per committer: a
 * txn per committer, the fencing check, which reads the table's txn versions, and checkpoints on a
 * thread of the committer's own; committers race for versions); {@code sink-one-jvm} is the same
 * with the committers in one worker JVM, where the table logs take turns and share what they read
 * (tasks of one worker with delta.commit.group=false, or several connectors on one table).
 *
 * <p>Run: {@code bin/bench --parts commit [--commits N] [--levels 1,4,16]}; {@code
 * -Dbench.paths=standalone,sink,sink-one-jvm} picks the paths. Figures are relative: both servers
 * share the CPU with the committers.
 */
public final class LogStoreCommitBench {

  private LogStoreCommitBench() {}

  public static void main(String[] args) throws Exception {
    int commitsPerLevel = Integer.getInteger("bench.commits", 256);
    List<Integer> levels = new ArrayList<>();
    for (String s : System.getProperty("bench.levels", "1,4,16").split(",")) {
      levels.add(Integer.parseInt(s.trim()));
    }
    try (Dynalite ddb = Dynalite.inMemory();
        S3Proxy s3 = S3Proxy.inMemory()) {
      Configuration conf = s3.hadoopConf();
      // The connector leaves S3A's upload buffer at its default (disk); the test servers' "array"
      // allocates a whole multipart block (64 MB) for every commit file.
      String buffer = System.getProperty("bench.s3a.buffer", "disk");
      conf.set("fs.s3a.fast.upload.buffer", buffer);
      conf.set(DynamoDbLogStoreKeys.ENDPOINT, ddb.endpoint().toString());
      conf.set(DynamoDbLogStoreKeys.TABLE_NAME, "delta_log_bench");
      List<String> paths =
          Arrays.stream(
                  System.getProperty("bench.paths", "standalone,sink,sink-one-jvm").split(","))
              .map(String::trim)
              .toList();
      Map<String, Configuration> stores = new LinkedHashMap<>();
      for (String store :
          System.getProperty("bench.stores", "dynamodb,s3-conditional").split(",")) {
        Configuration c = new Configuration(conf);
        switch (store.trim()) {
          case "dynamodb" ->
              c.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
          case "s3-conditional" -> {
            c.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, S3ConditionalLogStore.class.getName());
            c.setBoolean(S3ConditionalLogStore.S3A_CONDITIONAL_ENABLED, true);
          }
          default -> throw new IllegalArgumentException("bench.stores: no store " + store);
        }
        stores.put(store.trim(), c);
      }

      // Warm-up: class loading, JIT, connection pools; not measured. With only 20 warm-up commits
      // the first level measured the JIT too: 1 committer took 112 ms of CPU per commit on its
      // first 128 commits and 80 ms on its third.
      int warmup = Integer.getInteger("bench.warmup.commits", 400);
      for (Map.Entry<String, Configuration> store : stores.entrySet()) {
        String table = s3.uri("warmup-" + store.getKey());
        createTable(store.getValue(), table);
        for (String path : paths) {
          run(
              committers(path, store.getValue(), table),
              4,
              Math.max(1, warmup / 4 / paths.size() / stores.size()));
        }
      }
      System.out.printf(
          "%-15s %-11s %-11s %8s %10s %9s %9s %9s%n",
          "store", "path", "committers", "commits", "commits/s", "p50 ms", "p99 ms", "max ms");
      for (int committers : levels) {
        for (Map.Entry<String, Configuration> store : stores.entrySet()) {
          for (String path : paths) {
            Configuration storeConf = store.getValue();
            int perCommitter = Math.max(1, commitsPerLevel / committers);
            String table = s3.uri("bench-" + store.getKey() + "-" + path + "-" + committers);
            createTable(storeConf, table);
            RequestCounter.reset();
            long jvmCpu0 = jvmCpuNanos();
            long childCpu0 = childCpuNanos();
            Result r = run(committers(path, storeConf, table), committers, perCommitter);
            int n = r.latenciesMs.size();
            long jvmCpu = jvmCpuNanos() - jvmCpu0;
            long childCpu = childCpuNanos() - childCpu0;
            System.out.printf(
                "%-15s %-11s %-11d %8d %10.1f %9.0f %9.0f %9.0f%n",
                store.getKey(),
                path,
                committers,
                n,
                n / r.wallSeconds,
                pct(r.latenciesMs, 50),
                pct(r.latenciesMs, 99),
                pct(r.latenciesMs, 100));
            if (Boolean.getBoolean("bench.details")) {
              System.out.printf(
                  "    CPU per commit: bench JVM (committers + s3proxy) %.1f ms, dynalite %.1f ms%n",
                  jvmCpu / 1e6 / n, childCpu / 1e6 / n);
              System.out.print(RequestCounter.report(n));
            }
          }
        }
      }
    }
  }

  /** Makes committer {@code id}'s loop: each call of it commits one file. */
  private interface Committers {
    Runnable open(int id);
  }

  private static Committers committers(String path, Configuration conf, String table) {
    return switch (path) {
      case "standalone" -> id -> standalone(conf, table, id);
      case "sink" ->
          id -> new SinkCommitLoop(apart(conf), table, id, checkpointThread(id))::commitNext;
      case "sink-one-jvm" ->
          id -> new SinkCommitLoop(conf, table, id, checkpointThread(id))::commitNext;
      default -> throw new IllegalArgumentException("bench.paths: no path " + path);
    };
  }

  /**
   * Committers that act as if each ran in a JVM of its own: they race for versions instead of
   * taking turns, as the table logs of one JVM do.
   */
  private static Configuration apart(Configuration conf) {
    Configuration c = new Configuration(conf);
    c.setBoolean(TableLog.COOPERATE_IN_JVM, false);
    return c;
  }

  /** A worker's checkpoint thread: one per committer, as each would run in a JVM of its own. */
  private static Executor checkpointThread(int id) {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, "checkpoints-" + id);
          t.setDaemon(true);
          return t;
        });
  }

  private static Runnable standalone(Configuration conf, String table, int id) {
    DeltaLog log = DeltaLog.forTable(conf, table);
    log.update();
    int[] i = {0};
    return () -> {
      OptimisticTransaction txn = log.startTransaction();
      txn.commit(
          List.of(
              new AddFile(
                  "c" + id + "-" + i[0]++ + ".parquet",
                  Map.of(),
                  1000,
                  System.currentTimeMillis(),
                  true,
                  null,
                  null)),
          new Operation(Operation.Name.WRITE),
          "bench");
    };
  }

  private record Result(List<Double> latenciesMs, double wallSeconds) {}

  private static Result run(Committers make, int committers, int perCommitter) throws Exception {
    List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
    CyclicBarrier barrier = new CyclicBarrier(committers + 1);
    ExecutorService pool = Executors.newFixedThreadPool(committers);
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < committers; c++) {
      // Opened here: a committer that cannot open must not leave the others at the barrier.
      Runnable commit = make.open(c);
      futures.add(
          pool.submit(
              () -> {
                barrier.await();
                for (int i = 0; i < perCommitter; i++) {
                  long t0 = System.nanoTime();
                  commit.run();
                  latencies.add((System.nanoTime() - t0) / 1e6);
                }
                return null;
              }));
    }
    barrier.await();
    long start = System.nanoTime();
    for (Future<?> f : futures) {
      f.get();
    }
    double wall = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    return new Result(new ArrayList<>(latencies), wall);
  }

  private static void createTable(Configuration conf, String table) {
    OptimisticTransaction txn = DeltaLog.forTable(conf, table).startTransaction();
    txn.updateMetadata(
        Metadata.builder()
            .schema(new StructType(new StructField[] {new StructField("id", new LongType(), true)}))
            .build());
    txn.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), "bench");
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * utime + stime of the child processes (dynalite's node), from /proc; 0 where there is no /proc.
   */
  private static long childCpuNanos() {
    long ticks = 0;
    for (ProcessHandle child : ProcessHandle.current().descendants().toList()) {
      try {
        String stat = Files.readString(Path.of("/proc/" + child.pid() + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      } catch (IOException | RuntimeException e) {
        // gone or not Linux
      }
    }
    return ticks * 10_000_000L; // USER_HZ = 100
  }

  private static double pct(List<Double> values, int p) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int idx = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, idx)));
  }
}
