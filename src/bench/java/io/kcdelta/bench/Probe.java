package io.kcdelta.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** What the timed task wrapper saw of one benchmark run (the workers share the bench's JVM). */
final class Probe {
  static final Map<String, Probe> RUNS = new ConcurrentHashMap<>();

  final AtomicLong firstPutMs = new AtomicLong(-1);
  final AtomicLong lastPutMs = new AtomicLong(-1);
  final AtomicLong records = new AtomicLong();
  final AtomicLong putNanos = new AtomicLong();

  static Probe of(String run) {
    return RUNS.computeIfAbsent(run, r -> new Probe());
  }

  void seen(int n, long startNanos) {
    if (n == 0) {
      return;
    }
    long now = System.currentTimeMillis();
    firstPutMs.compareAndSet(-1, now);
    records.addAndGet(n);
    lastPutMs.accumulateAndGet(now, Math::max);
    putNanos.addAndGet(System.nanoTime() - startNanos);
  }
}
