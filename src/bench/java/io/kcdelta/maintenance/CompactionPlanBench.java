package io.kcdelta.maintenance;

import io.kcdelta.delta.AddFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Write amplification of the compaction policy, without I/O: one partition value receives a file of
 * about {@code perFlush} bytes (±50%) per flush, {@code flushesPerInterval} per compaction
 * interval, for {@code intervals} intervals; after each interval the planner's runs are merged (up
 * to 32, as {@link TableMaintenance} does). Prints bytes written, bytes rewritten by compaction and
 * their ratio, and the live files at the end (all, and below half the target).
 *
 * <p>Args: target perFlush flushesPerInterval intervals (several cases when none are given).
 */
public final class CompactionPlanBench {
  public static void main(String[] args) {
    List<long[]> cases = new ArrayList<>();
    if (args.length == 4) {
      cases.add(
          new long[] {
            Long.parseLong(args[0]),
            Long.parseLong(args[1]),
            Long.parseLong(args[2]),
            Long.parseLong(args[3])
          });
    } else {
      cases.add(new long[] {134_217_728L, 1_048_576L, 10, 500});
      cases.add(new long[] {134_217_728L, 100_000L, 10, 2_000});
      cases.add(new long[] {134_217_728L, 10_000_000L, 1, 500});
      cases.add(new long[] {1_048_576L, 10_000L, 5, 300});
    }
    for (long[] c : cases) {
      run(c[0], c[1], (int) c[2], (int) c[3]);
    }
  }

  private static void run(long target, long perFlush, int flushesPerInterval, int intervals) {
    Random random = new Random(1);
    CompactionPlanner planner = new CompactionPlanner(target, 8, 0);
    List<AddFile> live = new ArrayList<>();
    long written = 0;
    long rewritten = 0;
    long clock = 0;
    int id = 0;
    for (int i = 0; i < intervals; i++) {
      for (int f = 0; f < flushesPerInterval; f++) {
        long size = perFlush / 2 + (long) (random.nextDouble() * perFlush);
        live.add(file("f" + id++, size, clock++, true));
        written += size;
      }
      for (int k = 0; k < TableMaintenance.MAX_COMPACTIONS_PER_RUN; k++) {
        List<CompactionPlanner.Bin> bins = planner.plan(live, clock + 1);
        if (bins.isEmpty()) {
          break;
        }
        CompactionPlanner.Bin bin = bins.get(0);
        live.removeAll(bin.files());
        rewritten += bin.bytes();
        live.add(file("c" + id++, bin.bytes(), clock++, false));
      }
    }
    long small = live.stream().filter(f -> f.size() < target / 2).count();
    System.out.printf(
        Locale.ROOT,
        "[compaction-plan] target %d B, %d B per flush, %d flushes per interval, %d intervals: "
            + "written %d MB, rewritten by compaction %d MB (x%.2f), live files at the end %d "
            + "(%d below half the target)%n",
        target,
        perFlush,
        flushesPerInterval,
        intervals,
        written >> 20,
        rewritten >> 20,
        (double) rewritten / written,
        live.size(),
        small);
  }

  private static AddFile file(String name, long size, long time, boolean dataChange) {
    return AddFile.of("p=a/" + name, Map.of("p", "a"), size, time, dataChange, "{}");
  }
}
