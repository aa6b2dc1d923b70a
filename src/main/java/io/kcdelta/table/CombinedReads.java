package io.kcdelta.table;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Reads of one shared resource (the commit group's Delta log) asked for by many threads at once,
 * made as few reads: a thread that asks while a read is under way waits for it to end, and then one
 * read serves every thread that asked meanwhile, for all the keys they asked for.
 *
 * <p>Why: a commit group's log is read under one lock, so the reads of the tasks that share it
 * queue. When the tasks of a worker open their partitions together, N tasks made N reads one after
 * another; while S3 is down each took a full round of S3 retries, and the last task learned of the
 * outage after N of them. Now a task waits for at most two reads, and each read it gets began after
 * it asked (what it reads is never older than its question).
 *
 * <p>No thread of its own: the read runs on the thread of one of the askers.
 */
final class CombinedReads<K, R> {
  private final Function<Set<K>, R> read;

  private final Object lock = new Object();

  /** The keys asked for since the running read began, and the read that will serve them. */
  private Next<K, R> next;

  private boolean reading;

  private static final class Next<K, R> {
    final Set<K> keys = new HashSet<>();
    final CompletableFuture<R> result = new CompletableFuture<>();
  }

  /**
   * @param read reads the resource once for the given keys; may throw, for every asker of it
   */
  CombinedReads(Function<Set<K>, R> read) {
    this.read = read;
  }

  /**
   * A read that began after this call and covers {@code keys} (and maybe others').
   *
   * @throws RuntimeException whatever that read threw
   */
  R read(Set<K> keys) {
    Next<K, R> mine;
    boolean reader;
    synchronized (lock) {
      if (next == null) {
        next = new Next<>();
      }
      mine = next;
      mine.keys.addAll(keys);
      while (reading && next == mine) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("Interrupted while waiting to read the Delta log", e);
        }
      }
      // Else another asker of the same round took the read.
      reader = next == mine;
      if (reader) {
        next = null;
        reading = true;
      }
    }
    if (reader) {
      return readFor(mine);
    }
    try {
      return join(mine.result);
    } catch (RuntimeException | Error e) {
      if (interrupted(e) && !Thread.currentThread().isInterrupted()) {
        // The reader's thread was interrupted (its task is being cancelled), not this one: an
        // outcome of that task, not of the log. Read again.
        return read(keys);
      }
      throw e;
    }
  }

  private static boolean interrupted(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException
          || c instanceof java.nio.channels.ClosedByInterruptException
          || (c instanceof java.io.InterruptedIOException
              && !(c instanceof java.net.SocketTimeoutException))) {
        return true;
      }
    }
    return false;
  }

  private R readFor(Next<K, R> mine) {
    try {
      R result = read.apply(mine.keys);
      mine.result.complete(result);
      return result;
    } catch (Throwable e) {
      // Anything, even a sneaky checked exception: an asker left waiting would wait forever.
      mine.result.completeExceptionally(e);
      throw e;
    } finally {
      synchronized (lock) {
        reading = false;
        lock.notifyAll();
      }
    }
  }

  private static <R> R join(CompletableFuture<R> result) {
    try {
      return result.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }
}
