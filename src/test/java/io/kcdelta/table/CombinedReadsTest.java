package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** On real threads: the point is what askers that overlap a read get. */
class CombinedReadsTest {
  private static final int WAITERS = 6;

  /** The keys of every read made, in order. */
  private final List<Set<String>> reads = new CopyOnWriteArrayList<>();

  private final CountDownLatch firstReadStarted = new CountDownLatch(1);
  private final CountDownLatch releaseFirstRead = new CountDownLatch(1);
  private volatile RuntimeException failReadsAfterTheFirst;
  private volatile boolean interruptSecondRead;

  /** Returns the keys it read; the first read waits for the test to release it. */
  private final CombinedReads<String, Set<String>> combined =
      new CombinedReads<>(
          keys -> {
            reads.add(Set.copyOf(keys));
            if (reads.size() == 1) {
              firstReadStarted.countDown();
              await(releaseFirstRead);
            } else if (reads.size() == 2 && interruptSecondRead) {
              throw new IllegalStateException(
                  "read interrupted", new InterruptedException("task cancelled"));
            } else if (failReadsAfterTheFirst != null) {
              throw failReadsAfterTheFirst;
            }
            return Set.copyOf(keys);
          });

  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void noThreadLeft() throws InterruptedException {
    releaseFirstRead.countDown();
    for (Thread t : threads) {
      t.join(10_000);
      assertTrue(!t.isAlive(), t.getName() + " still runs");
    }
  }

  @Test
  void askersDuringAReadShareOneReadThatBeginsAfterIt() throws Exception {
    CompletableFuture<Set<String>> first = ask("a");
    assertTrue(firstReadStarted.await(10, TimeUnit.SECONDS));
    List<CompletableFuture<Set<String>>> waiting = askWhileTheFirstReadRuns();

    releaseFirstRead.countDown();

    assertEquals(Set.of("a"), get(first));
    for (int i = 0; i < WAITERS; i++) {
      // Not the first read's result: that one began before they asked.
      assertTrue(get(waiting.get(i)).contains("k" + i));
    }
    assertEquals(2, reads.size(), "reads made: " + reads);
    assertEquals(Set.of("k0", "k1", "k2", "k3", "k4", "k5"), reads.get(1));
  }

  @Test
  void aFailedReadFailsEveryAskerItServedAndTheNextAskerReadsAgain() throws Exception {
    failReadsAfterTheFirst = new IllegalStateException("S3 is down");
    CompletableFuture<Set<String>> first = ask("a");
    assertTrue(firstReadStarted.await(10, TimeUnit.SECONDS));
    List<CompletableFuture<Set<String>>> waiting = askWhileTheFirstReadRuns();

    releaseFirstRead.countDown();

    get(first);
    for (CompletableFuture<Set<String>> w : waiting) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> get(w));
      assertSame(failReadsAfterTheFirst, e.getCause());
    }
    assertEquals(2, reads.size());
    failReadsAfterTheFirst = null;
    assertEquals(Set.of("z"), combined.read(Set.of("z")));
    assertEquals(3, reads.size());
  }

  @Test
  void aReadEndedByItsReadersInterruptIsMadeAgainForTheOthersItServed() throws Exception {
    interruptSecondRead = true;
    CompletableFuture<Set<String>> first = ask("a");
    assertTrue(firstReadStarted.await(10, TimeUnit.SECONDS));
    List<CompletableFuture<Set<String>>> waiting = askWhileTheFirstReadRuns();

    releaseFirstRead.countDown();

    assertEquals(Set.of("a"), get(first));
    int interrupted = 0;
    for (int i = 0; i < WAITERS; i++) {
      try {
        assertTrue(get(waiting.get(i)).contains("k" + i));
      } catch (ExecutionException e) {
        // The one whose thread made the second read: its own interrupt.
        assertInstanceOf(InterruptedException.class, e.getCause().getCause());
        interrupted++;
      }
    }
    assertEquals(1, interrupted, "only the interrupted reader fails; the others read again");
    assertTrue(reads.size() >= 3, "reads: " + reads);
  }

  @Test
  void askersOneAfterAnotherEachGetAReadOfTheirOwn() {
    releaseFirstRead.countDown();
    assertEquals(Set.of("a"), combined.read(Set.of("a")));
    assertEquals(Set.of("b"), combined.read(Set.of("b")));
    assertEquals(List.of(Set.of("a"), Set.of("b")), reads);
  }

  @Test
  void anAskerInterruptedWhileWaitingGivesUpAndKeepsItsInterrupt() throws Exception {
    ask("a");
    assertTrue(firstReadStarted.await(10, TimeUnit.SECONDS));
    CompletableFuture<Boolean> interruptedAgain = new CompletableFuture<>();
    Thread waiter =
        start(
            "waiter",
            () -> {
              try {
                combined.read(Set.of("b"));
                interruptedAgain.completeExceptionally(new AssertionError("read without waiting"));
              } catch (IllegalStateException e) {
                interruptedAgain.complete(Thread.currentThread().isInterrupted());
              }
            });
    awaitWaiting(waiter);

    waiter.interrupt();

    assertTrue(interruptedAgain.get(10, TimeUnit.SECONDS));
  }

  /** Starts the waiters and returns once each waits for the first read to end. */
  private List<CompletableFuture<Set<String>>> askWhileTheFirstReadRuns() throws Exception {
    List<CompletableFuture<Set<String>>> waiting = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      waiting.add(ask("k" + i));
    }
    for (int i = 1; i <= WAITERS; i++) {
      awaitWaiting(threads.get(i));
    }
    return waiting;
  }

  private CompletableFuture<Set<String>> ask(String key) {
    CompletableFuture<Set<String>> result = new CompletableFuture<>();
    start(
        "asks-" + key,
        () -> {
          try {
            result.complete(combined.read(Set.of(key)));
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  private Thread start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    threads.add(t);
    t.start();
    return t;
  }

  /** Until the thread parks in a wait (the asker's wait for the running read). */
  private static void awaitWaiting(Thread t) throws TimeoutException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t.getState() != Thread.State.WAITING) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(t.getName() + " is " + t.getState());
      }
      Thread.onSpinWait();
    }
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
