package io.kcdelta.aws;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * Temporary credentials that are renewed before they expire: from half their lifetime on (at most 5
 * minutes before expiry) a background renewal starts while callers keep the current session; from
 * the last quarter (at most 1 minute before expiry) callers wait for a renewal. A failed renewal
 * keeps the current session while it is valid, so a short STS outage is never seen; only when it
 * has expired does the failure reach the caller.
 *
 * <p>The times follow the lifetime STS granted, not the one asked for: STS grants less than asked
 * (the role's maximum session duration, 1 hour for role chaining), and the SDK's own STS providers
 * use fixed margins (1 and 5 minutes) that turn a session shorter than them into one STS call per
 * request.
 */
final class RefreshingCredentials implements AwsCredentialsProvider {
  private static final Logger LOG = LoggerFactory.getLogger(RefreshingCredentials.class);

  private static final Duration MAX_PREFETCH = Duration.ofMinutes(5);
  private static final Duration MAX_STALE = Duration.ofMinutes(1);

  private static final ExecutorService RENEWALS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "kcdelta-aws-credentials-renewal");
            t.setDaemon(true);
            return t;
          });

  /** One session from STS. */
  record Session(AwsSessionCredentials credentials, Instant expiration, String arn) {
    Session {
      Objects.requireNonNull(credentials, "credentials");
      Objects.requireNonNull(expiration, "expiration");
    }
  }

  /** Gets a new session; throws the SDK's or our own exception when STS refuses or fails. */
  interface Source {
    Session fetch();
  }

  private record Held(Session session, Instant prefetchAt, Instant staleAt) {}

  private final String what;
  private final Source source;
  private final Clock clock;
  private final ExecutorService renewals;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean renewing = new AtomicBoolean();
  private volatile Held held;
  private volatile long renewalCount;

  /**
   * @param what what the sessions are, for log lines ("role arn:aws:iam::…:role/x")
   */
  RefreshingCredentials(String what, Source source) {
    this(what, source, Clock.systemUTC(), RENEWALS);
  }

  RefreshingCredentials(String what, Source source, Clock clock, ExecutorService renewals) {
    this.what = what;
    this.source = source;
    this.clock = clock;
    this.renewals = renewals;
  }

  @Override
  public AwsCredentials resolveCredentials() {
    Held h = held;
    Instant now = clock.instant();
    if (h != null && now.isBefore(h.prefetchAt())) {
      return h.session().credentials();
    }
    if (h != null && now.isBefore(h.staleAt())) {
      renewInBackground(h);
      return h.session().credentials();
    }
    return renewNow(h);
  }

  /** The current session's ARN (the assumed role's), null before the first session. */
  String sessionArn() {
    Held h = held;
    return h == null ? null : h.session().arn();
  }

  /** Sessions fetched so far (the first included). */
  long sessions() {
    return renewalCount;
  }

  private AwsCredentials renewNow(Held seen) {
    lock.lock();
    try {
      Held h = held;
      if (h != seen && h != null && clock.instant().isBefore(h.staleAt())) {
        return h.session().credentials();
      }
      try {
        return renew(h).session().credentials();
      } catch (RuntimeException e) {
        if (h != null && clock.instant().isBefore(h.session().expiration())) {
          LOG.warn(
              "Renewing the session of {} failed; the current one is used until it expires at {}: {}",
              what,
              h.session().expiration(),
              e.toString());
          return h.session().credentials();
        }
        throw e;
      }
    } finally {
      lock.unlock();
    }
  }

  private void renewInBackground(Held seen) {
    if (!renewing.compareAndSet(false, true)) {
      return;
    }
    try {
      renewals.execute(
          () -> {
            try {
              lock.lock();
              try {
                if (held == seen) {
                  renew(seen);
                }
              } finally {
                lock.unlock();
              }
            } catch (RuntimeException e) {
              LOG.warn(
                  "Renewing the session of {} ahead of its expiry at {} failed (tried again on the "
                      + "next request): {}",
                  what,
                  seen.session().expiration(),
                  e.toString());
            } finally {
              renewing.set(false);
            }
          });
    } catch (RuntimeException e) {
      renewing.set(false);
      throw e;
    }
  }

  /** Called with the lock held. */
  private Held renew(Held previous) {
    Instant asked = clock.instant();
    Session s = source.fetch();
    Duration lifetime = Duration.between(asked, s.expiration());
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalStateException(
          "STS returned a session for "
              + what
              + " that expired at "
              + s.expiration()
              + ", before it was asked for at "
              + asked
              + " (is this host's clock right?)");
    }
    Duration prefetch = min(MAX_PREFETCH, lifetime.dividedBy(2));
    Duration stale = min(MAX_STALE, lifetime.dividedBy(4));
    Held next = new Held(s, s.expiration().minus(prefetch), s.expiration().minus(stale));
    held = next;
    renewalCount++;
    if (previous == null) {
      LOG.info(
          "Assumed {} as {}; the session expires at {} and is renewed from {} on",
          what,
          s.arn(),
          s.expiration(),
          next.prefetchAt());
    } else {
      LOG.debug("Renewed the session of {}; it expires at {}", what, s.expiration());
    }
    return next;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public String toString() {
    return "RefreshingCredentials[" + what + "]";
  }
}
