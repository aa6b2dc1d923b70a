package io.kcdelta.bench;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.kcdelta.delta.CommitPlan;
import io.kcdelta.delta.CommitResult;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.TableLog;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;

/**
 * How Delta snapshot work grows with the table: the table is grown (commits of bench.batch AddFiles
 * with stats like ours, checkpoints every 10 versions as Standalone writes them) to each size of
 * bench.files (default 10,000 and 100,000 files); at each size, two writers (like two tasks, each
 * with its long-lived DeltaLog) alternate small commits the way our committer makes them
 * (startTransaction, txnVersion of its appIds, commit of 1 AddFile + SetTransactions), so each
 * one's snapshot must catch up with the other's commit. Prints per size: a cold load (new DeltaLog
 * + state), update() after the other writer's commit, and the whole commit, p50/p99/max.
 * bench.storage=file (default) or s3a (s3proxy + DynamoDB log store). bench.snapshot.paths:
 * standalone (Delta Standalone 3.3.2's own snapshot, the reference) and layer (the connector's
 * Delta layer), each on a table of its own.
 */
public final class SnapshotGrowthBench {
  public static void main(String[] args) throws Exception {
    List<Integer> sizes =
        Arrays.stream(System.getProperty("bench.files", "10000,100000").split(","))
            .map(String::trim)
            .map(Integer::parseInt)
            .toList();
    int batch = Integer.getInteger("bench.batch", 2_000);
    int rounds = Integer.getInteger("bench.rounds", 30);
    String storage = System.getProperty("bench.storage", "file");
    String d = System.getProperty("bench.dir");
    Path dir =
        d == null
            ? Files.createTempDirectory("kcdelta-snap-")
            : Files.createDirectories(Path.of(d));
    S3Proxy s3 = null;
    Dynalite dynamo = null;
    Configuration conf;
    String table;
    if (storage.equals("s3a")) {
      s3 = S3Proxy.onDisk(dir.resolve("s3"));
      dynamo = Dynalite.inMemory();
      conf = s3.hadoopConf();
      conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
      conf.set(DynamoDbLogStoreKeys.TABLE_NAME, "delta_log_snap");
      conf.set(DynamoDbLogStoreKeys.ENDPOINT, dynamo.endpoint().toString());
      conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
      table = s3.uri("snap/t" + System.currentTimeMillis());
    } else {
      conf = new Configuration();
      table = dir.resolve("t" + System.currentTimeMillis()).toUri().toString();
    }
    System.out.printf(
        Locale.ROOT,
        "[snapshot] storage %s, table %s, growth commits of %,d files, %d timed commits "
            + "per size%n",
        storage,
        table,
        batch,
        rounds);
    String paths = System.getProperty("bench.snapshot.paths", "standalone,layer");
    try {
      for (String path : paths.split(",")) {
        String t = table + "-" + path.trim();
        if (path.trim().equals("standalone")) {
          run(conf, t, sizes, batch, rounds);
        } else {
          runLayer(conf, t, sizes, batch, rounds);
        }
      }
    } finally {
      if (dynamo != null) {
        dynamo.close();
      }
      if (s3 != null) {
        s3.close();
      }
    }
    System.exit(0);
  }

  private static void run(
      Configuration conf, String table, List<Integer> sizes, int batch, int rounds) {
    DeltaLog grower = DeltaLog.forTable(conf, table);
    DeltaLog[] tasks = {DeltaLog.forTable(conf, table), DeltaLog.forTable(conf, table)};
    // Standalone writes stats verbatim: they must be a JSON string literal (see LAB.md).
    String stats = "\"" + sampleStats().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    long files = 0;
    long growMs = 0;
    for (int target : sizes) {
      long g0 = System.nanoTime();
      while (files < target) {
        int k = (int) Math.min(batch, target - files);
        OptimisticTransaction txn = grower.startTransaction();
        List<Action> actions = new ArrayList<>(k);
        if (txn.readVersion() < 0) {
          txn.updateMetadata(
              Metadata.builder()
                  .schema(
                      new StructType(
                          new StructField[] {
                            new StructField("order_id", new LongType()),
                            new StructField("bucket", new StringType())
                          }))
                  .partitionColumns(List.of())
                  .build());
        }
        long now = System.currentTimeMillis();
        for (int i = 0; i < k; i++) {
          actions.add(
              AddFile.builder(
                      "part-" + UUID.randomUUID() + ".c000.snappy.parquet",
                      Map.of(),
                      8_000_000,
                      now,
                      true)
                  .stats(stats)
                  .build());
        }
        txn.commit(actions, new Operation(Operation.Name.WRITE), "bench-grow");
        files += k;
      }
      growMs += (System.nanoTime() - g0) / 1_000_000;

      long c0 = System.nanoTime();
      DeltaLog cold = DeltaLog.forTable(conf, table);
      long coldFiles = cold.update().getAllFiles().size();
      long coldMs = (System.nanoTime() - c0) / 1_000_000;

      long[] update = new long[rounds];
      long[] read = new long[rounds];
      long[] commit = new long[rounds];
      for (int r = 0; r < rounds; r++) {
        DeltaLog log = tasks[r % 2];
        long t0 = System.nanoTime();
        log.update();
        long t1 = System.nanoTime();
        OptimisticTransaction txn = log.startTransaction();
        String app = "bench-task" + (r % 2) + "-topic-" + (r % 2);
        long v = txn.txnVersion(app);
        long tr = System.nanoTime();
        long now = System.currentTimeMillis();
        txn.commit(
            List.of(
                AddFile.builder(
                        "part-" + UUID.randomUUID() + ".c000.snappy.parquet",
                        Map.of(),
                        8_000_000,
                        now,
                        true)
                    .stats(stats)
                    .build(),
                new SetTransaction(app, v + 1000, Optional.of(now))),
            new Operation(Operation.Name.WRITE),
            "bench-commit");
        long t2 = System.nanoTime();
        update[r] = (t1 - t0) / 1_000;
        read[r] = (tr - t1) / 1_000;
        commit[r] = (t2 - t0) / 1_000;
        files++;
      }
      long version = grower.update().getVersion();
      System.out.printf(
          Locale.ROOT,
          "[snapshot] %,7d files (version %d, grown in %.1f s so far): cold load %,d ms "
              + "(%,d files); update() after the other writer's commit p50 %.1f / p99 %.1f / max %.1f ms; "
              + "startTransaction + txnVersion p50 %.1f / max %.1f ms; whole "
              + "commit (update + txnVersion + commit, checkpoint every 10th) p50 %.1f / p99 %.1f / max %.1f ms "
              + "(%.1f commits/s from one writer)%n",
          target,
          version,
          growMs / 1e3,
          coldMs,
          coldFiles,
          pct(update, 50),
          pct(update, 99),
          max(update),
          pct(read, 50),
          max(read),
          pct(commit, 50),
          pct(commit, 99),
          max(commit),
          1e6 / mean(commit));
    }
  }

  /**
   * The same on the connector's Delta layer: two table logs (two tasks) alternate commits of one
   * file and a txn, each bringing its state up to date from the other's commit; the cold load is a
   * new table log's first read (Kernel from the newest checkpoint, txns replayed); checkpoints at
   * the interval by Kernel, inline, as a worker's checkpoint thread would.
   */
  private static void runLayer(
      Configuration conf, String table, List<Integer> sizes, int batch, int rounds)
      throws java.io.IOException {
    TableLog grower = new TableLog(table, conf, "bench-grow");
    TableLog[] tasks = {new TableLog(table, conf, "bench-a"), new TableLog(table, conf, "bench-b")};
    String stats = sampleStats();
    long files = 0;
    long growMs = 0;
    for (int target : sizes) {
      long g0 = System.nanoTime();
      while (files < target) {
        int k = (int) Math.min(batch, target - files);
        long now = System.currentTimeMillis();
        List<io.kcdelta.delta.AddFile> adds = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
          adds.add(
              io.kcdelta.delta.AddFile.of(
                  "part-" + UUID.randomUUID() + ".c000.snappy.parquet",
                  Map.of(),
                  8_000_000,
                  now,
                  true,
                  stats));
        }
        CommitResult r =
            grower.commit(
                (base, since) ->
                    new CommitPlan(
                        base.exists()
                            ? null
                            : io.kcdelta.delta.Metadata.create(BENCH_SCHEMA, List.of(), Map.of()),
                        adds,
                        List.of(),
                        List.of(),
                        "WRITE",
                        Map.of(),
                        true,
                        Map.of()));
        checkpointIfDue(grower, r.version());
        files += k;
      }
      growMs += (System.nanoTime() - g0) / 1_000_000;

      long c0 = System.nanoTime();
      LogState cold = new TableLog(table, conf, "bench-cold").update();
      long coldMs = (System.nanoTime() - c0) / 1_000_000;

      long[] update = new long[rounds];
      long[] read = new long[rounds];
      long[] commit = new long[rounds];
      for (int r = 0; r < rounds; r++) {
        TableLog log = tasks[r % 2];
        long t0 = System.nanoTime();
        LogState state = log.update();
        long t1 = System.nanoTime();
        String app = "bench-task" + (r % 2) + "-topic-" + (r % 2);
        long v = state.txnVersion(app);
        long tr = System.nanoTime();
        long now = System.currentTimeMillis();
        io.kcdelta.delta.AddFile add =
            io.kcdelta.delta.AddFile.of(
                "part-" + UUID.randomUUID() + ".c000.snappy.parquet",
                Map.of(),
                8_000_000,
                now,
                true,
                stats);
        CommitResult result =
            log.commit(
                (base, since) ->
                    new CommitPlan(
                        null,
                        List.of(add),
                        List.of(),
                        List.of(new io.kcdelta.delta.Txn(app, base.txnVersion(app) + 1000, now)),
                        "WRITE",
                        Map.of(),
                        true,
                        Map.of()));
        checkpointIfDue(log, result.version());
        long t2 = System.nanoTime();
        update[r] = (t1 - t0) / 1_000;
        read[r] = (tr - t1) / 1_000;
        commit[r] = (t2 - t0) / 1_000;
        files++;
      }
      System.out.printf(
          Locale.ROOT,
          "[snapshot layer] %,7d files (version %d, grown in %.1f s so far): cold load (state, txns) %,d ms; "
              + "update after the other writer's commit p50 %.1f / p99 %.1f / max %.1f ms; "
              + "txn version read p50 %.3f / max %.3f ms; whole "
              + "commit (update + txn + commit, checkpoint every 10th) p50 %.1f / p99 %.1f / max %.1f ms "
              + "(%.1f commits/s from one writer)%n",
          target,
          cold.version(),
          growMs / 1e3,
          coldMs,
          pct(update, 50),
          pct(update, 99),
          max(update),
          pct(read, 50),
          max(read),
          pct(commit, 50),
          pct(commit, 99),
          max(commit),
          1e6 / mean(commit));
    }
  }

  private static final io.kcdelta.schema.StructType BENCH_SCHEMA =
      new io.kcdelta.schema.StructType(
          new io.kcdelta.schema.StructField("order_id", io.kcdelta.schema.PrimitiveType.LONG),
          new io.kcdelta.schema.StructField("bucket", io.kcdelta.schema.PrimitiveType.STRING));

  private static void checkpointIfDue(TableLog log, long version) throws java.io.IOException {
    if (log.checkpointDue(version, log.cached().metadata())) {
      log.checkpoint(version);
    }
  }

  /** Stats shaped like ours for the bench schema (25 leaf columns, strings cut at 32 chars). */
  private static String sampleStats() {
    StringBuilder min = new StringBuilder();
    StringBuilder max = new StringBuilder();
    StringBuilder nulls = new StringBuilder();
    for (int i = 0; i < 25; i++) {
      String sep = i == 0 ? "" : ",";
      if (i % 3 == 0) {
        min.append(sep).append("\"col").append(i).append("\":").append(1000 + i);
        max.append(sep).append("\"col").append(i).append("\":").append(9_999_999 + i);
      } else {
        min.append(sep).append("\"col").append(i).append("\":\"aliqua commodo consequat duis au\"");
        max.append(sep)
            .append("\"col")
            .append(i)
            .append("\":\"voluptate velit esse cillum fugi\u007f\"");
      }
      nulls.append(sep).append("\"col").append(i).append("\":").append(i % 4 == 0 ? 123 : 0);
    }
    return "{\"numRecords\":20000,\"minValues\":{"
        + min
        + "},\"maxValues\":{"
        + max
        + "},\"nullCount\":{"
        + nulls
        + "}}";
  }

  private static double pct(long[] micros, int p) {
    long[] s = micros.clone();
    Arrays.sort(s);
    int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))] / 1e3;
  }

  private static double max(long[] micros) {
    return Arrays.stream(micros).max().orElse(0) / 1e3;
  }

  private static double mean(long[] micros) {
    return Arrays.stream(micros).average().orElse(0);
  }
}
