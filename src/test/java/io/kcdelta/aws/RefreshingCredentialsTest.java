package io.kcdelta.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/** When a role's session is renewed, on a clock the test moves. */
class RefreshingCredentialsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final ManualExecutor background = new ManualExecutor();
  private final AtomicInteger fetches = new AtomicInteger();
  private Duration lifetime = Duration.ofSeconds(20);
  private RuntimeException failWith;

  private RefreshingCredentials.Session fetch() {
    if (failWith != null) {
      throw failWith;
    }
    int n = fetches.incrementAndGet();
    return new RefreshingCredentials.Session(
        AwsSessionCredentials.create("ASIA" + n, "secret" + n, "token" + n),
        clock.instant().plus(lifetime),
        "arn:aws:sts::111111111111:assumed-role/r/s");
  }

  private RefreshingCredentials provider() {
    return new RefreshingCredentials("role r", this::fetch, clock, background);
  }

  @Test
  void aTwentySecondSessionIsRenewedInTheBackgroundFromTenSecondsAndAwaitedFromFifteen() {
    RefreshingCredentials p = provider();
    assertEquals("ASIA1", p.resolveCredentials().accessKeyId());
    clock.advance(Duration.ofMillis(9_999));
    for (int i = 0; i < 50; i++) {
      assertEquals("ASIA1", p.resolveCredentials().accessKeyId());
    }
    assertEquals(1, fetches.get(), "no renewal before half the lifetime");
    assertEquals(0, background.pending());

    clock.advance(Duration.ofMillis(1));
    for (int i = 0; i < 50; i++) {
      // Callers keep the current session while one renewal runs in the background.
      assertEquals("ASIA1", p.resolveCredentials().accessKeyId());
    }
    assertEquals(1, background.pending(), "one renewal, however many callers");
    background.runAll();
    assertEquals(2, fetches.get());
    assertEquals("ASIA2", p.resolveCredentials().accessKeyId());

    // The new session (from t=10 s) is not renewed again before t=20 s; from t=25 s callers wait.
    clock.advance(Duration.ofSeconds(15));
    assertEquals("ASIA3", p.resolveCredentials().accessKeyId(), "renewed in the caller's thread");
    assertEquals(3, fetches.get());
  }

  @Test
  void anHourLongSessionIsRenewedFiveMinutesAheadAndAwaitedOneMinuteAhead() {
    lifetime = Duration.ofHours(1);
    RefreshingCredentials p = provider();
    p.resolveCredentials();
    clock.advance(Duration.ofMinutes(54).plusSeconds(59));
    p.resolveCredentials();
    assertEquals(0, background.pending());
    clock.advance(Duration.ofSeconds(1));
    p.resolveCredentials();
    assertEquals(1, background.pending());
    background.drop();
    clock.advance(Duration.ofMinutes(3).plusSeconds(59));
    assertEquals("ASIA1", p.resolveCredentials().accessKeyId(), "still 61 s left: not awaited");
    clock.advance(Duration.ofSeconds(1));
    assertEquals("ASIA2", p.resolveCredentials().accessKeyId());
  }

  @Test
  void aFailedRenewalKeepsTheSessionUntilItExpiresThenFails() {
    RefreshingCredentials p = provider();
    AwsCredentials first = p.resolveCredentials();
    failWith = new IllegalStateException("STS unreachable");
    clock.advance(Duration.ofSeconds(12));
    assertSame(first, p.resolveCredentials());
    background.runAll();
    clock.advance(Duration.ofSeconds(7));
    assertSame(first, p.resolveCredentials(), "renewal failed, 1 s of the session left");
    clock.advance(Duration.ofSeconds(1));
    IllegalStateException e = assertThrows(IllegalStateException.class, p::resolveCredentials);
    assertEquals("STS unreachable", e.getMessage());
    failWith = null;
    assertEquals("ASIA2", p.resolveCredentials().accessKeyId(), "STS back: a new session");
  }

  @Test
  void aSessionThatExpiredBeforeItWasAskedForIsRefused() {
    lifetime = Duration.ofSeconds(-1);
    assertThrows(IllegalStateException.class, provider()::resolveCredentials);
  }

  @Test
  void theFirstSessionIsFetchedOnceByConcurrentCallers() throws Exception {
    RefreshingCredentials p = provider();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Thread t = new Thread(p::resolveCredentials);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(1, fetches.get());
  }

  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /** Runs submitted tasks only when told to. */
  private static final class ManualExecutor extends AbstractExecutorService {
    private final List<Runnable> tasks = new ArrayList<>();

    synchronized int pending() {
      return tasks.size();
    }

    void runAll() {
      List<Runnable> now;
      synchronized (this) {
        now = new ArrayList<>(tasks);
        tasks.clear();
      }
      now.forEach(Runnable::run);
    }

    /** Forgets the tasks, as if the renewal thread never got to run. */
    synchronized void drop() {
      tasks.clear();
    }

    @Override
    public synchronized void execute(Runnable command) {
      tasks.add(command);
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
