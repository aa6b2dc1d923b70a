package io.kcdelta.delta;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the table logs of one JVM share about one table: the turn to commit (first come, first
 * served) and the newest state any of them read or committed. Racing each other, they would only
 * take each other's versions; the one that keeps losing waits longest (the commit bench saw one log
 * of 4 lose 191 times in a row).
 *
 * <p>Kept for the most recently used {@link #MAX_TABLES} table paths. Forgetting one is safe: the
 * logs of that table then race as if in JVMs of their own, which the log store makes correct.
 */
final class SharedTableLogs {
  static final int MAX_TABLES = 1024;

  private static final Map<String, SharedTableLogs> BY_PATH =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SharedTableLogs> eldest) {
          return size() > MAX_TABLES;
        }
      };

  private final ReentrantLock turn = new ReentrantLock(true);
  private final AtomicReference<LogState> newest = new AtomicReference<>();

  private SharedTableLogs() {}

  static SharedTableLogs of(String path) {
    synchronized (BY_PATH) {
      return BY_PATH.computeIfAbsent(path, p -> new SharedTableLogs());
    }
  }

  /** Waits for this JVM's turn to commit to the table; false after {@code timeoutMs}. */
  boolean awaitTurn(long timeoutMs) throws InterruptedException {
    return turn.tryLock(timeoutMs, TimeUnit.MILLISECONDS);
  }

  void endTurn() {
    turn.unlock();
  }

  /** The newest state a log of this JVM offered, or null. */
  LogState newest() {
    return newest.get();
  }

  /** Offers a state; kept if it is newer than the one known. */
  void offer(LogState s) {
    newest.accumulateAndGet(s, (a, b) -> a == null || b.version() > a.version() ? b : a);
  }
}
