package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Random schedules of Connect runtime events (produce, poll/put, RetriableException redelivery, eager and
 * cooperative rebalances among up to three task instances, graceful stops, crashes, zombies) and storage
 * faults (data file create/upload failures, commits that fail before or after landing) against the real
 * writer on local Delta tables. {@code -Dsim.schedules=N} (default 150) and {@code -Dsim.seed=S} (first seed).
 */
class ExactlyOnceSimulationTest {
  private static final int STEPS = 120;

  @Test
  void randomSchedulesKeepTheExactlyOnceContract() throws IOException {
    int schedules = Integer.getInteger("sim.schedules", 150);
    long first = Long.getLong("sim.seed", 1);
    Path base = baseDir();
    // the first failing seed of each kind of violation, and how many seeds failed that way
    Map<String, String> firstByKind = new LinkedHashMap<>();
    Map<String, Integer> countByKind = new LinkedHashMap<>();
    long started = System.nanoTime();
    for (long seed = first; seed < first + schedules; seed++) {
      Path dir = base.resolve("s" + seed);
      try (Simulation sim = new Simulation(seed, dir)) {
        List<String> violations = sim.run(STEPS);
        if (!violations.isEmpty()) {
          String kind = kindOf(violations.get(0));
          firstByKind.putIfAbsent(kind, describe(seed, sim, violations));
          countByKind.merge(kind, 1, Integer::sum);
        }
      }
      Simulation.deleteRecursively(dir);
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    System.out.printf("simulation: %d schedules from seed %d in %d ms; failed: %s%n", schedules, first, ms,
        countByKind);
    assertTrue(firstByKind.isEmpty(), countByKind + "\n\n" + String.join("\n\n", firstByKind.values()));
  }

  /** The violation without the names and numbers that differ between seeds. */
  static String kindOf(String violation) {
    String firstLine = violation.lines().findFirst().orElse("");
    return firstLine.replaceAll("task-\\d+", "task").replaceAll("[ab]-\\d", "tp").replaceAll("\\[[0-9, ]*\\]", "[..]")
        .replaceAll("\\d+", "N");
  }

  static String describe(long seed, Simulation sim, List<String> violations) {
    int keep = Boolean.getBoolean("sim.verbose") ? Integer.MAX_VALUE : 40;
    List<String> tail = sim.trace.subList(Math.max(0, sim.trace.size() - keep), sim.trace.size());
    return "seed " + seed + ": " + String.join("\n  ", violations) + "\n  last steps:\n    "
        + String.join("\n    ", tail);
  }

  static Path baseDir() throws IOException {
    Path shm = Path.of("/dev/shm");
    Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    Path base = Files.createTempDirectory(parent, "kcdelta-sim");
    base.toFile().deleteOnExit();
    return base;
  }
}
