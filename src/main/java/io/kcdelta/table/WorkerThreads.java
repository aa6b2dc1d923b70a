package io.kcdelta.table;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** Threads of the worker's own (beside the task threads): daemons that end when idle. */
final class WorkerThreads {
  private WorkerThreads() {}

  /** A pool of at most {@code threads} named {@code name}; queued work waits for a thread. */
  static ExecutorService pool(String name, int threads) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              // Hadoop and Delta resolve classes by name: the plugin's loader, like a task thread.
              t.setContextClassLoader(WorkerThreads.class.getClassLoader());
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
