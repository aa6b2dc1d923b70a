package io.kcdelta.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the simulated storage of one schedule does at each call: succeed, fail before acting, or act
 * and then fail (the answer lost).
 *
 * <p>Hadoop and Delta Standalone instantiate {@link SimFileSystem} and {@link SimLogStore} by class
 * name, so they cannot be handed the faults of their schedule: they look them up by the path of
 * each call. Each schedule registers its own root directory, which lets schedules run on several
 * threads at once.
 *
 * <p>Two kinds of faults: a probability per kind of call (random schedules), and scripted ones,
 * "fail the next N calls of this kind on paths containing S" (regression tests), which are checked
 * first and use no randomness.
 */
final class SimFaults implements AutoCloseable {

  /** The storage calls that can fail. */
  enum Kind {
    /** Creating a data file fails (an upload that cannot start). */
    DATA_FILE_CREATE("creating"),
    /** Closing a data file fails (the upload of a finished file fails). */
    DATA_FILE_CLOSE("uploading"),
    /** Writing a Delta log version fails before anything is written. */
    COMMIT_BEFORE("writing"),
    /** A Delta log version is written, then the call fails as if the answer was lost. */
    COMMIT_AFTER("lost the answer after writing");

    private final String verb;

    Kind(String verb) {
      this.verb = verb;
    }
  }

  private static final Map<String, SimFaults> BY_ROOT = new ConcurrentHashMap<>();

  private final String root;
  private final Random random;
  private final Map<Kind, Double> probability = new EnumMap<>(Kind.class);
  private final List<Scripted> scripted = new ArrayList<>();

  /** Every fault injected, in order: "kind path". */
  private final List<String> injected = new ArrayList<>();

  private SimFaults(String root, Random random) {
    this.root = root;
    this.random = random;
  }

  /**
   * The faults of the schedule whose files all live below {@code root}; {@link #close()} forgets
   * them.
   */
  static SimFaults register(java.nio.file.Path root, Random random) {
    String key = root.toAbsolutePath().normalize().toString();
    SimFaults faults = new SimFaults(key, random);
    if (BY_ROOT.putIfAbsent(key, faults) != null) {
      throw new IllegalStateException("Two schedules share the root " + key);
    }
    return faults;
  }

  @Override
  public void close() {
    BY_ROOT.remove(root, this);
  }

  /** Sets how likely each call of this kind fails from now on (0: never). */
  synchronized void set(Kind kind, double p) {
    probability.put(kind, p);
  }

  synchronized double get(Kind kind) {
    return probability.getOrDefault(kind, 0.0);
  }

  /** The next {@code times} calls of this kind on a path containing {@code pathPart} fail. */
  synchronized void failNext(Kind kind, String pathPart, int times) {
    scripted.add(new Scripted(kind, pathPart, times));
  }

  /** No call fails any more: neither random nor scripted faults. */
  synchronized void healAll() {
    probability.clear();
    scripted.clear();
  }

  synchronized List<String> injected() {
    return List.copyOf(injected);
  }

  synchronized int injectedCount() {
    return injected.size();
  }

  /**
   * Throws if the call of this kind on {@code path} is to fail; called by the simulated storage.
   */
  static void maybeFail(Kind kind, org.apache.hadoop.fs.Path path) throws IOException {
    String p = path.toUri().getPath();
    ownerOf(p).failIfDue(kind, p, path.getName());
  }

  private static SimFaults ownerOf(String path) {
    for (SimFaults f : BY_ROOT.values()) {
      if (path.startsWith(f.root + "/")) {
        return f;
      }
    }
    // Storage calls outside any schedule would silently run without faults: a harness bug.
    throw new IllegalStateException("No simulation registered a root above " + path);
  }

  private synchronized void failIfDue(Kind kind, String path, String name) throws IOException {
    if (scriptedDue(kind, path) || randomDue(kind)) {
      injected.add(kind + " " + path);
      throw new IOException("injected: " + kind.verb + " " + name);
    }
  }

  private boolean scriptedDue(Kind kind, String path) {
    for (Scripted s : scripted) {
      if (s.kind == kind && s.remaining > 0 && path.contains(s.pathPart)) {
        s.remaining--;
        return true;
      }
    }
    return false;
  }

  private boolean randomDue(Kind kind) {
    double p = probability.getOrDefault(kind, 0.0);
    return p > 0 && random.nextDouble() < p;
  }

  private static final class Scripted {
    final Kind kind;
    final String pathPart;
    int remaining;

    Scripted(Kind kind, String pathPart, int remaining) {
      this.kind = kind;
      this.pathPart = pathPart;
      this.remaining = remaining;
    }
  }
}
