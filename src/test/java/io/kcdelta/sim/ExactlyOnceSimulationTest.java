package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 *   <li>{@code -Dsim.schedules=N}, default 2000: 75 s on two idle cores;
 *   <li>{@code -Dsim.seed=S}, the first seed (1);
 *   <li>{@code -Dsim.steps=S}, events per schedule (120);
 *   <li>{@code -Dsim.threads=T}, default one per core: schedules are independent, each on its own
 *       directory with its own faults, so the result does not depend on T;
 *   <li>{@code -Dsim.dir=D}, where the tables go: a failure names its directory, which keeps the
 *       writer's hash order of table paths when it is replayed;
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

  @Test
  void randomSchedulesKeepTheExactlyOnceContract() throws Exception {
    int schedules = Integer.getInteger("sim.schedules", 2000);
    long first = Long.getLong("sim.seed", 1);
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
      for (long seed = first; seed < first + schedules; seed++) {
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
      // the first failing seed of each kind of violation, and how many seeds failed that way
      Map<String, String> firstByKind = new LinkedHashMap<>();
      Map<String, Integer> countByKind = new LinkedHashMap<>();
      Map<Simulation.Situation, Integer> situations = new EnumMap<>(Simulation.Situation.class);
      for (Future<Outcome> f : outcomes) {
        Outcome o = f.get();
        o.situations().forEach((k, n) -> situations.merge(k, n, Integer::sum));
        if (o.kind() != null) {
          firstByKind.putIfAbsent(o.kind(), o.description());
          countByKind.merge(o.kind(), 1, Integer::sum);
        }
      }
      long ms = (System.nanoTime() - started) / 1_000_000;
      System.out.printf(
          "simulation: %d schedules from seed %d on %d thread(s) in %d ms; reached %s; failed: %s%n",
          schedules, first, threads, ms, situations, countByKind);
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

  private static Outcome runSchedule(long seed, Path dir) {
    try (Simulation sim = new Simulation(seed, dir)) {
      List<String> violations = sim.run(STEPS);
      return violations.isEmpty()
          ? new Outcome(seed, null, null, sim.situations)
          : new Outcome(
              seed,
              kindOf(violations.get(0)),
              describe(seed, dir, sim, violations),
              sim.situations);
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

  static String describe(long seed, Path dir, Simulation sim, List<String> violations) {
    int keep = Boolean.getBoolean("sim.verbose") ? Integer.MAX_VALUE : 40;
    List<String> tail = sim.trace.subList(Math.max(0, sim.trace.size() - keep), sim.trace.size());
    // The writer iterates its tables in the hash order of their paths: the same directory keeps
    // that order.
    String replay =
        "-Dsim.seed="
            + seed
            + " -Dsim.schedules=1 -Dsim.steps="
            + STEPS
            + " -Dsim.dir="
            + dir.getParent();
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
