package io.kcdelta.maintenance;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.TableLog;
import io.kcdelta.parquet.DataFileNames;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one table healthy from one worker: compaction every {@code compaction.interval.ms} and
 * orphan cleanup once a day, while at least one of the worker's tasks is a maintainer of the table
 * (holds partition 0 of a topic that writes to it: one worker per topic, whatever the task count).
 *
 * <p>Runs on the worker's one maintenance thread ({@link #backgroundThread()}): one rewrite at a
 * time in the JVM, never on a task thread, so put() keeps its CPU. Two workers that both maintain a
 * table (its topics' partitions 0 on two workers, or a rebalance in between) do no harm: a
 * compaction that loses a file to the other's fails its commit and is dropped ({@link Compactor}).
 * A failed run is logged and tried again at the next interval; it never fails a task.
 */
public final class TableMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(TableMaintenance.class);

  static final long ORPHAN_CLEANUP_PERIOD_MS = 86_400_000L;

  /** Compactions in one run at most, so one table does not hold the thread for long. */
  static final int MAX_COMPACTIONS_PER_RUN = 32;

  /** Small files younger than this many flush intervals are left alone: more may join them. */
  static final int MIN_AGE_FLUSH_INTERVALS = 3;

  private static final String THREAD_NAME = "kcdelta-table-maintenance";

  private final Supplier<TableLog> log;
  private final Path root;
  private final Configuration conf;
  private final DeltaSinkConfig config;
  private final LongConsumer committed;
  private final ScheduledExecutorService executor;

  private final Set<Object> maintainers = new HashSet<>();
  private ScheduledFuture<?> compaction;
  private ScheduledFuture<?> orphans;
  private volatile boolean stopped = true;

  /**
   * @param log the worker's log of the table (opened on first use)
   * @param committed told each version a compaction committed (for checkpoints)
   */
  public TableMaintenance(
      Supplier<TableLog> log,
      String path,
      Configuration conf,
      DeltaSinkConfig config,
      LongConsumer committed,
      ScheduledExecutorService executor) {
    this.log = log;
    this.root = new Path(path);
    this.conf = conf;
    this.config = config;
    this.committed = committed;
    this.executor = executor;
  }

  /** The one maintenance thread of this worker. It lives as long as the worker. */
  public static ScheduledExecutorService backgroundThread() {
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, THREAD_NAME);
              t.setDaemon(true);
              t.setPriority(Thread.MIN_PRIORITY);
              // Hadoop and Delta resolve classes by name: the plugin's loader, like a task thread.
              t.setContextClassLoader(TableMaintenance.class.getClassLoader());
              return t;
            });
    pool.setRemoveOnCancelPolicy(true);
    return pool;
  }

  /** Whether anything is configured to run at all. */
  public static boolean wanted(DeltaSinkConfig config) {
    return config.compactionEnabled() || config.orphanRetentionMs() >= 0;
  }

  /** {@code member} (a task's table) maintains the table or no longer does. */
  public synchronized void maintainer(Object member, boolean maintains) {
    boolean changed = maintains ? maintainers.add(member) : maintainers.remove(member);
    if (!changed) {
      return;
    }
    if (maintainers.size() == 1 && maintains) {
      start();
    } else if (maintainers.isEmpty()) {
      stop();
    }
  }

  private void start() {
    stopped = false;
    long interval = config.compactionIntervalMs();
    if (config.compactionEnabled()) {
      compaction =
          executor.scheduleWithFixedDelay(this::compact, interval, interval, TimeUnit.MILLISECONDS);
    }
    if (config.orphanRetentionMs() >= 0) {
      orphans =
          executor.scheduleWithFixedDelay(
              this::deleteOrphans, interval, ORPHAN_CLEANUP_PERIOD_MS, TimeUnit.MILLISECONDS);
    }
    LOG.info(
        "This worker maintains {}: compaction {}, orphan cleanup {}",
        root,
        config.compactionEnabled() ? "every " + interval + " ms" : "off",
        config.orphanRetentionMs() >= 0
            ? "daily, of files older than " + config.orphanRetentionMs() + " ms"
            : "off");
  }

  /** Stops the schedule; a run under way stops at its next check and drops its work. */
  public synchronized void stop() {
    maintainers.clear();
    stopped = true;
    if (compaction != null) {
      compaction.cancel(false);
      compaction = null;
    }
    if (orphans != null) {
      orphans.cancel(false);
      orphans = null;
    }
  }

  void compact() {
    Compactor compactor =
        new Compactor(
            log.get(),
            conf,
            new CompactionPlanner(
                config.compactionTargetFileBytes(),
                config.compactionMinInputFiles(),
                MIN_AGE_FLUSH_INTERVALS * config.flushIntervalMs()),
            new FileRewriter(conf, config.compressionCodec(), config.compactionTargetFileBytes()),
            new DataFileNames(config.txnAppIdPrefix(), config.compressionCodec()));
    try {
      for (int i = 0; i < MAX_COMPACTIONS_PER_RUN && !stopped; i++) {
        Compactor.Result result = compactor.compactOnce(System.currentTimeMillis(), () -> stopped);
        if (!(result instanceof Compactor.Compacted c)) {
          return;
        }
        LOG.info(
            "Compacted {} files ({} bytes, {} rows, {} of them deleted and dropped) of {} into"
                + " one of {} bytes in version {}",
            c.files(),
            c.bytes(),
            c.rows() + c.purgedRows(),
            c.purgedRows(),
            root,
            c.newBytes(),
            c.version());
        if (c.version() >= 0) {
          committed.accept(c.version());
        }
      }
    } catch (FileRewriter.StoppedException e) {
      LOG.debug("Compaction of {} stopped", root);
    } catch (Exception | LinkageError e) {
      LOG.warn(
          "Compaction of {} failed; trying again in {} ms", root, config.compactionIntervalMs(), e);
    }
  }

  void deleteOrphans() {
    long minAge = Math.max(config.orphanRetentionMs(), 2 * config.commitRetryTimeoutMs());
    try {
      int deleted =
          new OrphanFiles(
                  log.get(),
                  conf,
                  new DataFileNames(config.txnAppIdPrefix(), config.compressionCodec()),
                  minAge)
              .delete(System.currentTimeMillis());
      LOG.info("Orphan cleanup of {}: {} files deleted", root, deleted);
    } catch (Exception | LinkageError e) {
      LOG.warn("Orphan cleanup of {} failed; trying again tomorrow", root, e);
    }
  }
}
