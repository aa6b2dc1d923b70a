package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random schedules of Connect runtime events (produce, poll/put, RetriableException redelivery,
 * eager and cooperative rebalances among up to three task instances, graceful stops, crashes,
 * zombies) and storage faults (data file create/upload failures, commits that fail before or after
 * landing) against the real writer on local Delta tables. Settings:
 *
 * <ul>
 *   <li>without {@code -Dsim.seed} and {@code -Dsim.schedules} (CI): seeds 1..2000 and {@code
 *       -Dsim.rotating=N} (3000) schedules of a range that moves every day ({@link #seedRanges});
 *   <li>{@code -Dsim.seed=S} and {@code -Dsim.schedules=N}: N schedules from seed S (default 1 and
 *       2000), nothing else: a replay ({@code -Dsim.schedules=1}) or a soak;
 *   <li>{@code -Dsim.steps=S}, events per schedule (120);
 *   <li>{@code -Dsim.threads=T}, default one per core: schedules are independent, each on its own
 *       directory with its own faults, so the result does not depend on T;
 *   <li>{@code -Dsim.dir=D}, where the tables go (a fresh directory under /dev/shm by default); a
 *       schedule does not depend on it: the seed alone replays it;
 *   <li>{@code -Dsim.log=true} keeps the writer's log; {@code -Dsim.verbose=true} prints whole
 *       traces.
 * </ul>
 */
@Tag("simulation")
class ExactlyOnceSimulationTest {
  /**
   * Events per schedule. Measured here: per CPU second, 120-step schedules reached the situations
   * of holes 1-3 ({@link Simulation.Situation}) as often as 200-step ones and more often than 60 or
   * 40.
   */
  private static final int STEPS = Integer.getInteger("sim.steps", 120);

  /**
   * What one schedule found (nothing, or its violations with the trace that led there) and reached.
   */
  private record Outcome(
      long seed, String kind, String description, Map<Simulation.Situation, Integer> situations) {}

  /**
   * Schedules CI runs on top of the fixed range, from a range that moves every day (see {@link
   * #seedRanges}); 0 turns them off.
   */
  private static final int ROTATING = Integer.getInteger("sim.rotating", 3000);

  /** The rotating ranges cycle through this many days before they repeat. */
  private static final int ROTATION_DAYS = 1000;

  /** A run of consecutive seeds. */
  record SeedRange(long first, int count) {
    @Override
    public String toString() {
      return count + " schedules from seed " + first;
    }
  }

  @Test
  void randomSchedulesKeepTheExactlyOnceContract() throws Exception {
    List<SeedRange> ranges = seedRanges(LocalDate.now(ZoneOffset.UTC));
    int threads = Integer.getInteger("sim.threads", Runtime.getRuntime().availableProcessors());
    Path base = baseDir();
    long started = System.nanoTime();
    List<Future<Outcome>> outcomes = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Level logLevel = LogManager.getLogger("io.kcdelta").getLevel();
    if (!Boolean.getBoolean("sim.log")) {
      // The writer logs each injected fault with its stack trace: megabytes per run, which Surefire
      // pipes from the fork to Maven. A failing schedule's trace says what happened; -Dsim.log=true
      // keeps the log too.
      Configurator.setLevel("io.kcdelta", Level.ERROR);
    }
    HadoopDefaultResources defaults =
        Boolean.getBoolean("sim.hadoopDefaults") ? null : HadoopDefaultResources.suspend();
    try {
      for (SeedRange range : ranges) {
        for (long seed = range.first(); seed < range.first() + range.count(); seed++) {
          long s = seed;
          outcomes.add(
              pool.submit(
                  () -> {
                    if (defaults != null) {
                      defaults.again(); // what classes loaded by the schedules before added
                    }
                    return runSchedule(s, base.resolve("s" + s));
                  }));
        }
      }
      // the first failing seed of each kind of violation, and every seed that failed that way
      Map<String, String> firstByKind = new LinkedHashMap<>();
      Map<String, List<Long>> seedsByKind = new LinkedHashMap<>();
      Map<Simulation.Situation, Integer> situations = new EnumMap<>(Simulation.Situation.class);
      for (Future<Outcome> f : outcomes) {
        Outcome o = f.get();
        o.situations().forEach((k, n) -> situations.merge(k, n, Integer::sum));
        if (o.kind() != null) {
          firstByKind.putIfAbsent(o.kind(), o.description());
          seedsByKind.computeIfAbsent(o.kind(), k -> new ArrayList<>()).add(o.seed());
        }
      }
      Map<String, Integer> countByKind = new LinkedHashMap<>();
      seedsByKind.forEach((kind, seeds) -> countByKind.put(kind, seeds.size()));
      long ms = (System.nanoTime() - started) / 1_000_000;
      System.out.printf(
          "simulation: %s on %d thread(s) in %d ms; reached %s; failed: %s%s%n",
          ranges.stream().map(SeedRange::toString).collect(Collectors.joining(" and ")),
          threads,
          ms,
          situations,
          countByKind,
          seedsByKind.isEmpty() ? "" : " (seeds " + seedsByKind + ")");
      assertTrue(
          firstByKind.isEmpty(), countByKind + "\n\n" + String.join("\n\n", firstByKind.values()));
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(1, TimeUnit.MINUTES);
      if (defaults != null) {
        defaults.close();
      }
      Configurator.setLevel("io.kcdelta", logLevel);
    }
  }

  /**
   * What to run: {@code -Dsim.seed}/{@code -Dsim.schedules} when either is given (a replay, a
   * soak); else the fixed range CI always runs (seeds 1..2000) and {@link #ROTATING} schedules from
   * a range that moves on every day, so that CI searches new schedules each day. Its first seed is
   * printed, and any failing seed replays alone with {@code -Dsim.seed=S -Dsim.schedules=1}.
   */
  static List<SeedRange> seedRanges(LocalDate today) {
    Long seed = Long.getLong("sim.seed");
    Integer schedules = Integer.getInteger("sim.schedules");
    if (seed != null || schedules != null) {
      return List.of(
          new SeedRange(seed == null ? 1 : seed, schedules == null ? FIXED_SCHEDULES : schedules));
    }
    List<SeedRange> ranges = new ArrayList<>();
    ranges.add(new SeedRange(1, FIXED_SCHEDULES));
    if (ROTATING > 0) {
      long day = Math.floorMod(today.toEpochDay(), ROTATION_DAYS);
      ranges.add(new SeedRange(ROTATING_FIRST_SEED + day * ROTATING, ROTATING));
    }
    return ranges;
  }

  /** The fixed range every CI run checks. */
  private static final int FIXED_SCHEDULES = 2000;

  /** Rotating ranges start above every seed a soak of the issues used (1..40,000). */
  private static final long ROTATING_FIRST_SEED = 100_000;

  private static Outcome runSchedule(long seed, Path dir) {
    try (Simulation sim = new Simulation(seed, dir)) {
      List<String> violations = sim.run(STEPS);
      return violations.isEmpty()
          ? new Outcome(seed, null, null, sim.situations)
          : new Outcome(
              seed, kindOf(violations.get(0)), describe(seed, sim, violations), sim.situations);
    } finally {
      Simulation.deleteRecursively(dir);
    }
  }

  /** The violation without the names and numbers that differ between seeds. */
  static String kindOf(String violation) {
    String firstLine = violation.lines().findFirst().orElse("");
    return firstLine
        .replaceAll("task-\\d+", "task")
        .replaceAll("[ab]-\\d", "tp")
        .replaceAll("\\[[0-9, ]*\\]", "[..]")
        .replaceAll("\\d+", "N");
  }

  static String describe(long seed, Simulation sim, List<String> violations) {
    int keep = Boolean.getBoolean("sim.verbose") ? Integer.MAX_VALUE : 40;
    List<String> tail = sim.trace.subList(Math.max(0, sim.trace.size() - keep), sim.trace.size());
    String replay = "-Dsim.seed=" + seed + " -Dsim.schedules=1 -Dsim.steps=" + STEPS;
    return "seed "
        + seed
        + " (replay: "
        + replay
        + "): "
        + String.join("\n  ", violations)
        + "\n  last steps:\n    "
        + String.join("\n    ", tail);
  }

  /**
   * A fresh directory for the run's tables, in memory where possible; {@code -Dsim.dir} names it.
   */
  static Path baseDir() throws IOException {
    String given = System.getProperty("sim.dir");
    if (given != null) {
      return Files.createDirectories(Path.of(given));
    }
    Path shm = Path.of("/dev/shm");
    Path parent =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    Path base = Files.createTempDirectory(parent, "kcdelta-sim");
    base.toFile().deleteOnExit();
    return base;
  }
}
