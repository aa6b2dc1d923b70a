package io.kcdelta.bench;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;

/** Heap (sampled) and CPU/allocation of chosen threads during one benchmark run. */
final class Resources implements AutoCloseable {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final Thread sampler;
  private volatile boolean running = true;
  volatile long peakUsed;
  volatile long peakAfterGc;
  private final long cpuStart = OS.getProcessCpuTime();

  /** Connect runs tasks on pooled threads that earlier runs used too: count from here on only. */
  private final java.util.Map<Long, long[]> threadStart = new java.util.HashMap<>();

  Resources() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
    for (ThreadInfo ti : THREADS.dumpAllThreads(false, false)) {
      threadStart.put(
          ti.getThreadId(),
          new long[] {
            Math.max(0, THREADS.getThreadCpuTime(ti.getThreadId())),
            Math.max(0, THREADS.getThreadAllocatedBytes(ti.getThreadId()))
          });
    }
    sampler = new Thread(this::sample, "bench-heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sample() {
    while (running) {
      long used = 0;
      long afterGc = 0;
      for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
        if (p.getType() == MemoryType.HEAP) {
          used += p.getUsage().getUsed();
          if (p.getCollectionUsage() != null) {
            afterGc += p.getCollectionUsage().getUsed();
          }
        }
      }
      peakUsed = Math.max(peakUsed, used);
      peakAfterGc = Math.max(peakAfterGc, afterGc);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** CPU seconds of the whole process since this object was made. */
  double processCpuSeconds() {
    return (OS.getProcessCpuTime() - cpuStart) / 1e9;
  }

  /**
   * [cpu ns, allocated bytes] since this object was made, over live threads whose name contains
   * {@code part}.
   */
  long[] threadTotals(String part) {
    long cpu = 0;
    long alloc = 0;
    for (ThreadInfo ti : THREADS.dumpAllThreads(false, false)) {
      if (ti.getThreadName().contains(part)) {
        long[] start = threadStart.getOrDefault(ti.getThreadId(), new long[2]);
        long c = THREADS.getThreadCpuTime(ti.getThreadId()) - start[0];
        long a = THREADS.getThreadAllocatedBytes(ti.getThreadId()) - start[1];
        cpu += Math.max(0, c);
        alloc += Math.max(0, a);
      }
    }
    return new long[] {cpu, alloc};
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
  }
}
