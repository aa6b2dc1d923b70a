package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.retry.Backoff;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import io.kcdelta.retry.Transience;
import io.kcdelta.table.DeltaCommitter.Committed;
import io.kcdelta.table.DeltaCommitter.Fenced;
import io.kcdelta.table.DeltaCommitter.Outcome;
import io.kcdelta.table.RecordCheck.Errant;
import io.kcdelta.table.RecordCheck.Row;
import io.kcdelta.table.RecordCheck.Verdict;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once protocol of one sink task, top to bottom.
 *
 * <ol>
 *   <li>{@link #open}: the Delta log, not Kafka, says where each partition resumes: the txn version
 *       of its appId + 1. The consumer is sought there.
 *   <li>{@link #put}: records at or below what was already seen are redeliveries and are dropped;
 *       the rest are buffered into the table's open files, or reported as errant. A table is
 *       committed once its oldest buffered record waited {@code flush.interval.ms}.
 *   <li>Commit: files finished, then one Delta transaction per table adds them together with one
 *       SetTransaction per Kafka partition, after checking that the table still holds the versions
 *       this task expects (else another task owns the partitions now: the batch is dropped and the
 *       partitions are sought back to what the table holds).
 *   <li>{@link #preCommit}: only offsets durable in the Delta log go to Kafka.
 *   <li>{@link #close}: buffered data of the closed partitions is committed first.
 * </ol>
 *
 * Anything that loses buffered rows (a failed upload, a refused commit) drops the table's whole
 * batch and seeks its partitions back to the last durable offset, so rows are re-read, never
 * skipped. Until Connect applies that seek (at its next poll, after put() returns normally) every
 * record of those partitions it delivers is stale, including a redelivery of the same batch after a
 * RetriableException.
 */
public final class DeltaSinkWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkWriter.class);

  private final DeltaSinkConfig config;
  private final SinkTaskContext context;
  private final Configuration conf;
  private final DeltaCommitter committer;
  private final SinkMetrics metrics;
  private final RecordOrigin origin;
  private final LongSupplier clock;
  private final RecordCheck check;
  private final ErrantRecords errant;
  private final OpenFileBudget openFiles;

  /** How long a table may keep failing for a passing reason: delta.commit.retry.timeout.ms. */
  private final RetryPolicy retries;

  private final Map<String, Table> tables = new HashMap<>();
  private final PartitionOffsets offsets = new PartitionOffsets();
  private boolean failed;

  public DeltaSinkWriter(
      DeltaSinkConfig config,
      SinkTaskContext context,
      Configuration conf,
      ErrantRecordReporter reporter,
      SinkMetrics metrics,
      RecordOrigin origin,
      LongSupplier clock) {
    this(config, context, conf, reporter, metrics, origin, clock, OpenFileBudget.ofHeap());
  }

  DeltaSinkWriter(
      DeltaSinkConfig config,
      SinkTaskContext context,
      Configuration conf,
      ErrantRecordReporter reporter,
      SinkMetrics metrics,
      RecordOrigin origin,
      LongSupplier clock,
      OpenFileBudget openFiles) {
    this.config = config;
    this.context = context;
    this.conf = conf;
    this.metrics = metrics;
    this.origin = origin;
    this.clock = clock;
    this.openFiles = openFiles;
    this.committer = new DeltaCommitter(config.txnAppIdPrefix(), config.schemaEvolution());
    this.check = new RecordCheck(config.nullValueBehavior(), origin);
    this.errant = new ErrantRecords(reporter, metrics);
    this.retries =
        new RetryPolicy(
            RetryPolicy.UNLIMITED_ATTEMPTS,
            Duration.ofMillis(config.commitRetryTimeoutMs()),
            Duration.ZERO,
            Backoff.ofMillis(500, 5_000));
  }

  // ---------------------------------------------------------------- open

  /**
   * Reads each table once. A table that cannot be read now (S3 or DynamoDB briefly away) does not
   * hold up the rebalance: its partitions are resolved by the next put(), under the table's retry
   * budget.
   */
  public void open(Collection<TopicPartition> partitions) {
    Map<Table, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      byTable.computeIfAbsent(tableFor(tp.topic()), t -> new ArrayList<>()).add(tp);
    }
    byTable.forEach(
        (table, tps) -> {
          try {
            resume(table, tps, false);
          } catch (RuntimeException e) {
            if (!Transience.isTransient(e)) {
              throw new ConnectException(
                  "Could not read the Delta log of "
                      + table.path()
                      + ". "
                      + ServiceHint.of(e)
                      + " Error: "
                      + e,
                  e);
            }
            LOG.warn(
                "Could not read the Delta log of {} while opening {}; the next put() retries: {}",
                table.path(),
                tps,
                e.toString());
            tps.forEach(tp -> offsets.unresolved(tp, table));
          }
        });
  }

  /** Reads the tables open() could not, before any record is taken. */
  private void resolveLateOpens() {
    offsets
        .unresolvedByTable()
        .forEach(
            (table, tps) -> {
              try {
                resume(table, tps, true);
              } catch (RuntimeException e) {
                throw retryOrFail(table, "reading the Delta log of " + table.path(), e);
              }
              table.healthy();
            });
  }

  /**
   * Seeks the partitions to where the table says they resume. From open(), Connect seeks before it
   * fetches; late, from put(), what Connect delivers until the seek applies was fetched from the
   * group offset and is stale.
   */
  private void resume(Table table, List<TopicPartition> tps, boolean late) {
    Map<TopicPartition, Long> versions = committer.txnVersions(table, tps);
    Map<TopicPartition, Long> seeks = new HashMap<>();
    versions.forEach(
        (tp, version) -> {
          offsets.opened(tp, table, version, late && version >= 0);
          if (version >= 0) {
            seeks.put(tp, version + 1);
          }
        });
    context.offset(seeks);
    Map<String, String> resume = new TreeMap<>();
    versions.forEach(
        (tp, v) -> resume.put(tp.toString(), v < 0 ? "group offset" : String.valueOf(v + 1)));
    LOG.info(
        "Opened {} partition(s) of table {}{}; resuming from the Delta log at {}",
        tps.size(),
        table.path(),
        late ? " late" : "",
        resume);
  }

  // ---------------------------------------------------------------- put

  public void put(Collection<SinkRecord> records) {
    try {
      resolveLateOpens();
      long now = clock.getAsLong();
      for (SinkRecord record : records) {
        accept(record, now);
      }
      commitDueTables(now);
    } catch (RetriableException e) {
      // Connect delivers this same batch again; the seeks asked so far apply only after that.
      throw e;
    } catch (RuntimeException e) {
      failed = true;
      throw e;
    }
    offsets.seeksApplied();
  }

  private void accept(SinkRecord record, long now) {
    TopicPartition tp = origin.partition(record);
    long offset = origin.offset(record);
    PartitionProgress p = offsets.of(tp);
    if (p == null) {
      throw new ConnectException(
          "Connect delivered "
              + origin.describe(record)
              + " of a partition this task was "
              + "not given (open() was not called for "
              + tp
              + "); refusing to write it without its offsets."
              + origin.unopenedPartitionHint());
    }
    if (p.isRedelivery(offset)) {
      metrics.recordSkipped();
      return;
    }
    if (write(record, p.table, tp, offset, now)) {
      p.seen(offset);
      if (openFiles.rowWritten()) {
        boundOpenFiles();
      }
    }
  }

  /**
   * @return false when the table's batch was dropped and its partitions rewound instead
   */
  private boolean write(SinkRecord record, Table table, TopicPartition tp, long offset, long now) {
    Verdict verdict = check.check(record, table.state);
    if (verdict instanceof Row row) {
      try {
        table.files.write(row.value(), row.layout(), tp, offset, now);
        metrics.recordAccepted();
        return true;
      } catch (DataException e) {
        // A value the encoder rejects (e.g. a decimal wider than its column); it checks the whole
        // value before writing any of it, so the open file stays intact.
        verdict = check.cannotBeWritten(record, table.state, e);
      } catch (IOException | RuntimeException e) {
        rewindTable(table, "writing a data file", e);
        return false;
      }
    }
    if (verdict instanceof Errant bad) {
      errant.report(record, bad.problem());
    } else {
      metrics.recordSkipped();
    }
    // Not a row, but its offset is covered by the next commit.
    table.files.markProcessed(tp, offset, now);
    return true;
  }

  /** Finishes the task's largest open files early while they hold more memory than the budget. */
  private void boundOpenFiles() {
    for (Table t = openFiles.overBudget(tables.values());
        t != null;
        t = openFiles.overBudget(tables.values())) {
      try {
        t.files.finishLargest();
      } catch (IOException | RuntimeException e) {
        rewindTable(t, "finishing a data file early", e);
      }
    }
  }

  // ---------------------------------------------------------------- commit

  private void commitDueTables(long now) {
    for (Table table : tables.values()) {
      if (!table.files.isEmpty()
          && now - table.files.oldestRecordMs() >= config.flushIntervalMs()) {
        commit(table);
      }
    }
  }

  /**
   * Commits the table's batch, or drops it and rewinds its partitions; throws only to retry or
   * fail.
   */
  private void commit(Table table) {
    errant.awaitReports();
    Batch batch;
    try {
      batch = table.drain();
    } catch (IOException | RuntimeException e) {
      rewindTable(table, "finishing data files", e);
      return;
    }
    Map<TopicPartition, Long> expected = offsets.expectedVersions(batch.lastOffsets().keySet());
    long started = clock.getAsLong();
    Outcome outcome;
    try {
      outcome = committer.commit(table, batch, expected);
    } catch (DeltaCommitter.TableChangedException e) {
      table.files.deleteUncommitted(batch.files());
      rewindTable(table, e.getMessage(), e);
      return;
    } catch (RuntimeException e) {
      if (!Transience.isTransient(e)) {
        throw new ConnectException(
            "Delta refused the commit to "
                + table.path()
                + ": "
                + e.getMessage()
                + " "
                + ServiceHint.of(e),
            e);
      }
      // The files are finished and stay valid: keep them for the next attempt.
      table.files.requeue(batch);
      throw retryOrFail(table, "commit to " + table.path(), e);
    }
    table.healthy();
    if (outcome instanceof Committed c) {
      offsets.durable(batch.lastOffsets());
      table.committed(batch);
      metrics.recordCommit(batch, clock.getAsLong() - started);
      LOG.info(
          "Committed {} version {}: {} file(s), {} row(s), {} bytes, offsets {}",
          table.path(),
          c.version() < 0 ? "(already durable)" : c.version(),
          batch.files().size(),
          batch.rows(),
          batch.bytes(),
          sorted(batch.lastOffsets()));
    } else if (outcome instanceof Fenced f) {
      table.files.deleteUncommitted(batch.files());
      metrics.recordFenced();
      LOG.warn(
          "Refused to commit {} row(s) to {}: other writers committed these partitions meanwhile (table holds "
              + "{}, this task expected {}). Dropping the batch and resuming from the table.",
          batch.rows(),
          table.path(),
          sorted(f.versions()),
          sorted(expected));
      offsets.durable(f.versions());
      rewindTable(table, null, null);
    } else {
      LOG.debug(
          "Nothing to commit to {} yet: {} has no rows and the table does not exist",
          table.path(),
          sorted(batch.lastOffsets()));
    }
  }

  /**
   * Drops the table's buffered batch and seeks its partitions back to their last durable offset
   * (those being closed excepted: they are no longer ours, their next owner reads the table). A
   * persistent cause (S3 down) fails the task once the retry budget is spent.
   */
  private void rewindTable(Table table, String why, Exception cause) {
    table.abort();
    Map<TopicPartition, Long> seeks = offsets.rewind(table);
    context.offset(seeks);
    if (cause != null) {
      LOG.warn(
          "Dropped the buffered batch of {} ({}): re-reading from offsets {}",
          table.path(),
          why,
          sorted(seeks),
          cause);
      RuntimeException fatal = retryOrFail(table, why + " for " + table.path(), cause);
      if (!(fatal instanceof RetriableException)) {
        throw fatal;
      }
    }
  }

  /**
   * A RetriableException while the table's retry budget lasts (Connect redelivers after the
   * back-off), else, or when retrying cannot help, a ConnectException that says what to check.
   */
  private RuntimeException retryOrFail(Table table, String what, Exception cause) {
    if (!Transience.isTransient(cause)) {
      return new ConnectException(
          what
              + " failed for a reason that retrying cannot fix. "
              + ServiceHint.of(cause)
              + " Error: "
              + cause,
          cause);
    }
    RetryBudget budget = table.failing(retries, clock);
    OptionalLong delay = budget.nextDelayMillis();
    if (delay.isEmpty()) {
      return new ConnectException(
          "Gave up after "
              + budget.elapsedMillis()
              + " ms: "
              + what
              + " kept failing. "
              + ServiceHint.of(cause)
              + " Last error: "
              + cause,
          cause);
    }
    context.timeout(delay.getAsLong());
    return new RetriableException(
        what + " failed (retrying in " + delay.getAsLong() + " ms): " + cause, cause);
  }

  // ---------------------------------------------------------------- preCommit / close / stop

  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> current) {
    return offsets.committable(current);
  }

  /**
   * Commits what is buffered for the closed partitions. With the cooperative protocol the others
   * stay assigned: when that commit fails, their rows are dropped with the batch, so they are
   * re-read.
   */
  public void close(Collection<TopicPartition> partitions) {
    Set<Table> affected = new LinkedHashSet<>();
    for (TopicPartition tp : partitions) {
      PartitionProgress p = offsets.of(tp);
      if (p != null && p.table.files.partitions().contains(tp)) {
        affected.add(p.table);
      }
    }
    offsets.closing(partitions);
    try {
      for (Table table : affected) {
        if (failed) {
          table.abort();
          continue;
        }
        try {
          commit(table);
        } catch (RuntimeException e) {
          // Not durable: the closed partitions' next owner re-reads them from the table, the
          // partitions that stay are sought back here.
          LOG.warn(
              "Could not commit {} while closing partitions {}; their rows will be re-read",
              table.path(),
              partitions,
              e);
          rewindTable(table, null, null);
        }
      }
    } finally {
      offsets.closed(partitions);
    }
    tables.values().removeIf(t -> !offsets.writesTo(t) && t.files.isEmpty());
  }

  public void stop() {
    tables.values().forEach(Table::abort);
    tables.clear();
    offsets.clear();
  }

  // ---------------------------------------------------------------- helpers

  private Table tableFor(String topic) {
    return tables.computeIfAbsent(config.tablePath(topic), path -> new Table(path, conf, config));
  }

  private static Map<String, Long> sorted(Map<TopicPartition, Long> offsets) {
    Map<String, Long> out = new TreeMap<>();
    offsets.forEach((tp, v) -> out.put(tp.toString(), v));
    return out;
  }
}
