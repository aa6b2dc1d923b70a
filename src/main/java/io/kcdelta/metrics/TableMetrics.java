package io.kcdelta.metrics;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.apache.kafka.common.metrics.stats.Percentiles.BucketSizing;

/**
 * What one task does to one table, tagged {@code table=<path>}: its commits, how fresh the table
 * is, and what the task holds for it in memory. Commit figures also count into the task's totals.
 */
public final class TableMetrics {
  /** The p99 histogram spans 0..5 min; linear buckets are finest where commits usually are. */
  private static final int HISTOGRAM_BYTES = 4_000;

  private static final double HISTOGRAM_MAX_MS = 300_000;

  private final SinkMetrics task;
  private final String prefix;

  private final Sensor attempts;
  private final Sensor committed;
  private final Sensor rows;
  private final Sensor bytes;
  private final Sensor files;
  private final Sensor conflicts;
  private final Sensor fenced;
  private final Sensor failures;
  private final Sensor latency;
  private final Sensor finishedEarly;

  // Published by the task thread, read by JMX.
  private volatile long pendingSinceMs = -1;
  private volatile long newestCommittedTimestampMs = -1;
  private volatile long lastCommitMs = -1;
  private volatile long lastCommitVersion = -1;
  private volatile long failingSinceMs = -1;
  private volatile int openFiles;
  private volatile long bufferedRows;
  private volatile long bufferedBytes;

  public TableMetrics(SinkMetrics task, String path) {
    this.task = task;
    this.prefix = "table:" + path + ":";
    Map<String, String> tags = Map.of("table", path);
    attempts =
        counter(tags, "commit-attempts", "batches handed to a commit (a retried commit again)");
    committed = counter(tags, "commits", "batches committed");
    rows = perCommit(tags, "commit-rows", "committed-rows-total", "rows");
    bytes = perCommit(tags, "commit-bytes", "committed-bytes-total", "bytes of Parquet");
    files = perCommit(tags, "commit-files", null, "data files");
    conflicts =
        counter(
            tags,
            "commit-conflicts",
            "committed batches whose commit lost its first version to another writer and was"
                + " rebased onto the newer log");
    fenced =
        counter(
            tags,
            "commits-fenced",
            "batches refused because another writer committed their partitions (rewound)");
    failures =
        counter(
            tags,
            "commit-failures",
            "batches whose files could not be finished or whose commit failed (retried or"
                + " rewound)");
    finishedEarly =
        counter(
            tags,
            "files-finished-early",
            "open files finished before the commit because the task's open files outgrew its"
                + " memory budget");
    latency = sensor("commit-latency");
    if (latency != null) {
      latency.add(
          task.name("commit-latency-avg-ms", "average time from hand-in to outcome", tags),
          new Avg());
      latency.add(
          task.name("commit-latency-max-ms", "longest time from hand-in to outcome", tags),
          new Max());
      latency.add(
          new Percentiles(
              HISTOGRAM_BYTES,
              HISTOGRAM_MAX_MS,
              BucketSizing.LINEAR,
              new Percentile(
                  task.name(
                      "commit-latency-p99-ms",
                      "99th percentile of the time from hand-in to outcome, over the last minute"
                          + " or so",
                      tags),
                  99)));
    }
    task.gauges(
        tags,
        List.of(
            new SinkMetrics.GaugeSpec(
                "oldest-pending-record-age-ms",
                "how long the oldest record the task holds for the table (buffered or in a"
                    + " commit in flight) has waited since put(); 0 when none",
                (config, now) -> pendingSinceMs < 0 ? 0 : Math.max(0, now - pendingSinceMs)),
            new SinkMetrics.GaugeSpec(
                "committed-record-age-ms",
                "now minus the Kafka timestamp of the newest record the task committed to the"
                    + " table: how stale the table is; NaN until the task's first commit since"
                    + " its partitions of the table were assigned",
                (config, now) ->
                    newestCommittedTimestampMs < 0
                        ? Double.NaN
                        : (double) (now - newestCommittedTimestampMs)),
            new SinkMetrics.GaugeSpec(
                "last-commit-age-ms",
                "time since the task's last successful commit to the table; NaN until the"
                    + " first since its partitions of the table were assigned",
                (config, now) -> lastCommitMs < 0 ? Double.NaN : (double) (now - lastCommitMs)),
            new SinkMetrics.GaugeSpec(
                "last-commit-version",
                "Delta version of the task's last commit to the table; -1 before the first",
                (config, now) -> lastCommitVersion),
            new SinkMetrics.GaugeSpec(
                "retrying-for-ms",
                "how long the table's current run of retried failures has lasted; 0 when its"
                    + " last attempt worked",
                (config, now) -> failingSinceMs < 0 ? 0 : now - failingSinceMs),
            new SinkMetrics.GaugeSpec(
                "open-files",
                "Parquet files open for the table (one per partition value being written)",
                (config, now) -> openFiles),
            new SinkMetrics.GaugeSpec(
                "buffered-rows",
                "rows held for the table's next commit",
                (config, now) -> bufferedRows),
            new SinkMetrics.GaugeSpec(
                "buffered-bytes",
                "bytes held for the table's next commit: finished files, and the open files'"
                    + " in-memory size as of the last memory check (every 1,000 rows)",
                (config, now) -> bufferedBytes)));
  }

  private Sensor sensor(String name) {
    return task.sensor(prefix + name);
  }

  private Sensor counter(Map<String, String> tags, String name, String what) {
    return task.total(prefix + name, name, "total " + what, tags);
  }

  /** Average and max per committed batch, and the total as {@code total} (null: none). */
  private Sensor perCommit(Map<String, String> tags, String name, String total, String what) {
    Sensor s = sensor(name);
    if (s != null) {
      s.add(task.name(name + "-avg", what + " per committed batch, average", tags), new Avg());
      s.add(task.name(name + "-max", what + " per committed batch, largest", tags), new Max());
      if (total != null) {
        s.add(task.name(total, what + " committed, total", tags), new CumulativeSum());
      }
    }
    return s;
  }

  // ---------------------------------------------------------------- events

  /** A record was taken for the table at {@code nowMs}. */
  public void received(long nowMs) {
    if (pendingSinceMs < 0) {
      pendingSinceMs = nowMs;
    }
  }

  public void handedIn() {
    SinkMetrics.record(attempts, 1);
  }

  public void committed(CommitSize batch, long version, boolean rebased, long latencyMs) {
    task.recordCommit(batch, latencyMs);
    SinkMetrics.record(committed, 1);
    SinkMetrics.record(rows, batch.rows());
    SinkMetrics.record(bytes, batch.bytes());
    SinkMetrics.record(files, batch.files());
    SinkMetrics.record(latency, latencyMs);
    if (rebased) {
      SinkMetrics.record(conflicts, 1);
    }
    if (version >= 0) {
      lastCommitVersion = version;
    }
    lastCommitMs = task.now();
    newestCommittedTimestampMs = Math.max(newestCommittedTimestampMs, batch.newestTimestampMs());
  }

  public void fenced(long latencyMs) {
    task.recordFenced();
    SinkMetrics.record(fenced, 1);
    SinkMetrics.record(latency, latencyMs);
  }

  public void failed() {
    SinkMetrics.record(failures, 1);
  }

  public void finishedEarly() {
    SinkMetrics.record(finishedEarly, 1);
  }

  /** The table's current run of failures started at {@code sinceMs}. */
  public void failing(long sinceMs) {
    failingSinceMs = sinceMs;
  }

  /** A failed attempt, to be retried. */
  public void retried(SinkMetrics.Service service) {
    task.recordRetry(service);
  }

  /** The run of failures ended in a success after {@code millis}. */
  public void recovered(SinkMetrics.Service service, long millis) {
    failingSinceMs = -1;
    task.recordRecovered(service, millis);
  }

  /**
   * What the task holds for the table now.
   *
   * @param pendingSinceMs when the oldest record not durable yet was taken (-1: none)
   */
  public void holding(long pendingSinceMs, int openFiles, long rows, long bytes) {
    this.pendingSinceMs = pendingSinceMs;
    this.openFiles = openFiles;
    this.bufferedRows = rows;
    this.bufferedBytes = bytes;
  }

  /**
   * The task writes no more to the table (its partitions moved on): it holds nothing for it, and
   * its staleness is no longer the table's.
   */
  public void idle() {
    holding(-1, 0, 0, 0);
    failingSinceMs = -1;
    newestCommittedTimestampMs = -1;
    lastCommitMs = -1;
  }
}
