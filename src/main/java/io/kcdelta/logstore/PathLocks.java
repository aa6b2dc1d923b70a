package io.kcdelta.logstore;

import java.io.InterruptedIOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Per-path mutual exclusion inside one JVM. DynamoDB already decides which writer wins a version
 * across JVMs; serializing locally keeps threads of one worker from racing each other through the
 * temp-write/put/copy steps and a recoverer from copying a file its own writer is copying. Locks
 * are dropped when unused so the map does not grow with every version ever written.
 */
final class PathLocks {

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

  /** A held lock; close releases it. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  Held acquire(String path) throws InterruptedIOException {
    Entry e =
        locks.compute(
            path,
            (k, v) -> {
              Entry entry = v == null ? new Entry() : v;
              entry.users++;
              return entry;
            });
    try {
      e.lock.lockInterruptibly();
    } catch (InterruptedException ie) {
      release(path);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the lock on " + path);
    }
    return () -> {
      e.lock.unlock();
      release(path);
    };
  }

  private void release(String path) {
    locks.compute(path, (k, v) -> --v.users == 0 ? null : v);
  }
}
