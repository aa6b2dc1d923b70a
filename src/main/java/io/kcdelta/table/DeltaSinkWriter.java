package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.DeltaSinkConfig.NullValueBehavior;
import io.kcdelta.retry.Backoff;
import io.kcdelta.retry.RetryBudget;
import io.kcdelta.retry.RetryPolicy;
import io.kcdelta.retry.Transience;
import io.kcdelta.table.DeltaCommitter.Committed;
import io.kcdelta.table.DeltaCommitter.Fenced;
import io.kcdelta.table.DeltaCommitter.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
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
 *   <li>{@link #open}: the Delta log, not Kafka, says where each partition resumes: the txn version of
 *       its appId + 1. The consumer is sought there.</li>
 *   <li>{@link #put}: records at or below what was already seen are redeliveries and are dropped; the
 *       rest are buffered into the table's open files, or reported as errant. A table is committed
 *       once its oldest buffered record waited {@code flush.interval.ms}.</li>
 *   <li>Commit: files finished, then one Delta transaction per table adds them together with one
 *       SetTransaction per Kafka partition, after checking that the table still holds the versions
 *       this task expects (else another task owns the partitions now: the batch is dropped and the
 *       partitions are sought back to what the table holds).</li>
 *   <li>{@link #preCommit}: only offsets durable in the Delta log go to Kafka.</li>
 *   <li>{@link #close}: buffered data of the closed partitions is committed first.</li>
 * </ol>
 * Anything that loses buffered rows (a failed upload, a refused commit) drops the table's whole batch
 * and seeks its partitions back to the last durable offset, so rows are re-read, never skipped.
 */
public final class DeltaSinkWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkWriter.class);

  private final DeltaSinkConfig config;
  private final SinkTaskContext context;
  private final Configuration conf;
  private final DeltaCommitter committer;
  private final ErrantRecordReporter reporter;
  private final LongSupplier clock;
  private final SinkMetrics metrics;
  private final RecordOrigin origin;

  private final Map<String, TableWriter> tables = new HashMap<>();
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final Map<TopicPartition, TableWriter> tableOf = new HashMap<>();
  private final List<Future<Void>> pendingReports = new ArrayList<>();
  private boolean failed;
  /** The partitions close() is closing: no longer ours to seek (Connect would fail the task). */
  private Set<TopicPartition> closing = Set.of();

  public DeltaSinkWriter(DeltaSinkConfig config, SinkTaskContext context, Configuration conf,
      ErrantRecordReporter reporter, SinkMetrics metrics, RecordOrigin origin, LongSupplier clock) {
    this.config = config;
    this.context = context;
    this.conf = conf;
    this.reporter = reporter;
    this.metrics = metrics;
    this.origin = origin;
    this.clock = clock;
    this.committer = new DeltaCommitter(config.txnAppIdPrefix(), config.schemaEvolution());
  }

  // ---------------------------------------------------------------- open

  public void open(Collection<TopicPartition> partitions) {
    Map<TableWriter, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      byTable.computeIfAbsent(tableFor(tp.topic()), t -> new ArrayList<>()).add(tp);
    }
    for (Map.Entry<TableWriter, List<TopicPartition>> e : byTable.entrySet()) {
      TableWriter table = e.getKey();
      Map<TopicPartition, Long> versions = withRetries("read the Delta log of " + table.path(),
          () -> committer.txnVersions(table, e.getValue()));
      for (TopicPartition tp : e.getValue()) {
        long version = versions.get(tp);
        PartitionProgress p = new PartitionProgress(version);
        progress.put(tp, p);
        tableOf.put(tp, table);
        if (version >= 0) {
          // Connect seeks right after open() returns, before it fetches: no record of the old
          // position reaches put().
          context.offset(tp, version + 1);
        }
      }
      LOG.info("Opened {} partition(s) of table {}; resuming from the Delta log at {}", e.getValue().size(),
          table.path(), resumeOffsets(versions));
    }
  }

  // ---------------------------------------------------------------- put

  public void put(Collection<SinkRecord> records) {
    try {
      long now = clock.getAsLong();
      for (SinkRecord record : records) {
        accept(record, now);
      }
      commitDueTables(now);
    } catch (RetriableException e) {
      // Connect delivers this same batch again, with the seeks asked so far applied only to what it
      // fetches after it: records of rewound partitions in the redelivery are still stale.
      throw e;
    } catch (RuntimeException e) {
      failed = true;
      throw e;
    }
    // The seeks asked so far (here, or in close() before this batch) are applied before the next fetch.
    for (PartitionProgress p : progress.values()) {
      p.rewindPending = false;
    }
  }

  private void accept(SinkRecord record, long now) {
    TopicPartition tp = origin.partition(record);
    long offset = origin.offset(record);
    PartitionProgress p = progress.get(tp);
    if (p == null) {
      failed = true;
      throw new ConnectException("Connect delivered " + where(record) + " of a partition this task was not "
          + "given (open() was not called for " + tp + "); refusing to write it without its offsets."
          + origin.unopenedPartitionHint());
    }
    if (p.rewindPending || offset <= p.lastSeen) {
      metrics.recordSkipped();
      return;
    }
    if (p.firstReceived < 0) {
      p.firstReceived = offset;
    }
    TableWriter table = tableOf.get(tp);
    if (write(record, table, tp, offset, now)) {
      p.lastSeen = offset;
    }
  }

  /** @return false when the table's batch was dropped and its partitions rewound instead */
  private boolean write(SinkRecord record, TableWriter table, TopicPartition tp, long offset, long now) {
    DataException problem = problemOf(record);
    if (problem != null) {
      return skipErrant(record, problem, table, tp, offset, now);
    }
    TableWriter.RecordLayout layout;
    try {
      layout = table.layoutFor(record.valueSchema());
    } catch (DataException e) {
      return skipErrant(record, cannotBeWritten(record, table, e), table, tp, offset, now);
    }
    try {
      table.write((Struct) record.value(), layout, tp, offset, now);
    } catch (DataException e) {
      // A value the encoder rejects (e.g. a decimal wider than its column); it checks the whole
      // value before writing any of it, so the open file stays intact.
      return skipErrant(record, cannotBeWritten(record, table, e), table, tp, offset, now);
    } catch (IOException | RuntimeException e) {
      rewindTable(table, "writing a data file", e);
      return false;
    }
    metrics.recordAccepted();
    return true;
  }

  /** Reports the record (or fails the task without a reporter); its offset still counts as processed. */
  private boolean skipErrant(SinkRecord record, DataException problem, TableWriter table, TopicPartition tp,
      long offset, long now) {
    reportErrant(record, problem);
    table.markProcessed(tp, offset, now);
    return true;
  }

  /** Why the record cannot be a row at all (no value, no schema), or null; the table checks the rest. */
  private DataException problemOf(SinkRecord record) {
    Object value = record.value();
    if (value == null) {
      return config.nullValueBehavior() == NullValueBehavior.FAIL
          ? new DataException("Record " + where(record) + " has a null value (tombstone) and "
              + DeltaSinkConfig.NULL_VALUES + "=fail. Set it to 'ignore' to skip such records.")
          : IGNORED;
    }
    if (!(value instanceof Struct) || record.valueSchema() == null) {
      return new DataException("Record " + where(record) + " has no Connect schema (value type "
          + value.getClass().getSimpleName() + "). Use a converter that produces schemas: Avro, Protobuf, "
          + "JSON Schema, or JsonConverter with schemas.enable=true.");
    }
    return null;
  }

  private DataException cannotBeWritten(SinkRecord record, TableWriter table, DataException cause) {
    return new DataException("Record " + where(record) + " cannot be written to " + table.path() + ": "
        + cause.getMessage(), cause);
  }

  private void reportErrant(SinkRecord record, DataException error) {
    if (error == IGNORED) {
      metrics.recordSkipped();
      return;
    }
    metrics.recordErrant();
    if (reporter == null) {
      throw error;
    }
    pendingReports.add(reporter.report(record, error));
  }

  private String where(SinkRecord r) {
    return origin.describe(r);
  }

  // ---------------------------------------------------------------- commit

  private void commitDueTables(long now) {
    for (TableWriter table : tables.values()) {
      if (!table.isEmpty() && now - table.oldestRecordMs() >= config.flushIntervalMs()) {
        commit(table);
      }
    }
  }

  /** Commits the table's batch, or drops it and rewinds its partitions; throws only to retry or fail. */
  private void commit(TableWriter table) {
    awaitErrantReports();
    Batch batch;
    try {
      batch = table.drain();
    } catch (IOException | RuntimeException e) {
      rewindTable(table, "finishing data files", e);
      return;
    }
    Map<TopicPartition, Long> expected = new HashMap<>();
    for (TopicPartition tp : batch.lastOffsets().keySet()) {
      expected.put(tp, progress.get(tp).committed);
    }
    long started = clock.getAsLong();
    Outcome outcome;
    try {
      outcome = committer.commit(table, batch, expected);
    } catch (DeltaCommitter.TableChangedException e) {
      table.deleteUncommitted(batch);
      rewindTable(table, e.getMessage(), e);
      return;
    } catch (RuntimeException e) {
      if (!Transience.isTransient(e)) {
        failed = true;
        throw new ConnectException("Delta refused the commit to " + table.path() + ": " + e.getMessage() + " "
            + ServiceHint.of(e), e);
      }
      // The files are finished and stay valid: keep them for the next attempt.
      table.requeue(batch);
      throw retryOrFail(table, "commit to " + table.path(), e);
    }
    table.failingSinceMs = -1;
    if (outcome instanceof Committed c) {
      for (Map.Entry<TopicPartition, Long> e : batch.lastOffsets().entrySet()) {
        progress.get(e.getKey()).committed = e.getValue();
      }
      table.committed(batch);
      metrics.recordCommit(batch, clock.getAsLong() - started);
      LOG.info("Committed {} version {}: {} file(s), {} row(s), {} bytes, offsets {}", table.path(),
          c.version() < 0 ? "(already durable)" : c.version(), batch.files().size(), batch.rows(), batch.bytes(),
          new TreeMap<>(toStrings(batch.lastOffsets())));
    } else {
      Fenced f = (Fenced) outcome;
      table.deleteUncommitted(batch);
      metrics.recordFenced();
      LOG.warn("Refused to commit {} to {}: other writers committed these partitions meanwhile (table holds {}, "
          + "this task expected {}). Dropping the batch and resuming from the table.", batch.rows() + " row(s)",
          table.path(), new TreeMap<>(toStrings(f.versions())), new TreeMap<>(toStrings(expected)));
      for (Map.Entry<TopicPartition, Long> e : f.versions().entrySet()) {
        progress.get(e.getKey()).committed = e.getValue();
      }
      rewindTable(table, null, null);
    }
  }

  private void awaitErrantReports() {
    for (Future<Void> f : pendingReports) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RetriableException("Interrupted while waiting for the dead letter queue", e);
      } catch (ExecutionException e) {
        throw new ConnectException("Could not write an errant record to the dead letter queue", e.getCause());
      }
    }
    pendingReports.clear();
  }

  /**
   * Drops the table's buffered batch and seeks its partitions back to their last durable offset
   * (those being closed excepted: they are no longer ours, their next owner reads the table).
   * A persistent cause (S3 down) fails the task once the retry budget is spent.
   */
  private void rewindTable(TableWriter table, String why, Exception cause) {
    table.abort();
    Map<TopicPartition, Long> seeks = new HashMap<>();
    for (Map.Entry<TopicPartition, TableWriter> e : tableOf.entrySet()) {
      if (e.getValue() == table && !closing.contains(e.getKey())) {
        long target = progress.get(e.getKey()).rewind();
        if (target >= 0) {
          seeks.put(e.getKey(), target);
        }
      }
    }
    context.offset(seeks);
    if (cause != null) {
      LOG.warn("Dropped the buffered batch of {} ({}): re-reading from offsets {}", table.path(), why,
          new TreeMap<>(toStrings(seeks)), cause);
      RuntimeException fatal = retryOrFail(table, why + " for " + table.path(), cause);
      if (!(fatal instanceof RetriableException)) {
        throw fatal;
      }
    }
  }

  /** A RetriableException within the retry budget, else a ConnectException that says what to check. */
  private RuntimeException retryOrFail(TableWriter table, String what, Exception cause) {
    if (!Transience.isTransient(cause)) {
      // A bug or a configuration problem: retrying it for the whole budget only hides it.
      failed = true;
      return new ConnectException(what + " failed for a reason that retrying cannot fix. " + ServiceHint.of(cause)
          + " Error: " + cause, cause);
    }
    long now = clock.getAsLong();
    if (table.failingSinceMs < 0) {
      table.failingSinceMs = now;
    }
    long failingFor = now - table.failingSinceMs;
    if (failingFor >= config.commitRetryTimeoutMs()) {
      failed = true;
      return new ConnectException("Gave up after " + failingFor + " ms: " + what + " kept failing. "
          + ServiceHint.of(cause) + " Last error: " + cause, cause);
    }
    context.timeout(Math.min(5_000, Math.max(500, failingFor / 4)));
    return new RetriableException(what + " failed (will retry): " + cause, cause);
  }

  // ---------------------------------------------------------------- preCommit / close / stop

  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> current) {
    Map<TopicPartition, OffsetAndMetadata> durable = new HashMap<>();
    for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
      if (e.getValue().committed >= 0 && current.containsKey(e.getKey())) {
        durable.put(e.getKey(), new OffsetAndMetadata(e.getValue().committed + 1));
      }
    }
    return durable;
  }

  /**
   * Commits what is buffered for the closed partitions. With the cooperative protocol the others stay
   * assigned: when that commit fails, their rows are dropped with the batch, so they are re-read.
   */
  public void close(Collection<TopicPartition> partitions) {
    Set<TableWriter> affected = new HashSet<>();
    for (TopicPartition tp : partitions) {
      TableWriter t = tableOf.get(tp);
      if (t != null && t.partitionsInBatch().contains(tp)) {
        affected.add(t);
      }
    }
    closing = Set.copyOf(partitions);
    try {
      for (TableWriter table : affected) {
        if (failed) {
          table.abort();
          continue;
        }
        try {
          commit(table);
        } catch (RuntimeException e) {
          // Not durable: the closed partitions' next owner re-reads them from the table, the
          // partitions that stay are sought back here.
          LOG.warn("Could not commit {} while closing partitions {}; their rows will be re-read", table.path(),
              partitions, e);
          rewindTable(table, null, null);
        }
      }
    } finally {
      closing = Set.of();
    }
    for (TopicPartition tp : partitions) {
      progress.remove(tp);
      tableOf.remove(tp);
    }
    tables.values().removeIf(t -> !tableOf.containsValue(t) && t.isEmpty());
  }

  public void stop() {
    for (TableWriter table : tables.values()) {
      table.abort();
    }
    tables.clear();
    progress.clear();
    tableOf.clear();
  }

  // ---------------------------------------------------------------- helpers

  /** Marks a tombstone that {@code behavior.on.null.values=ignore} skips: not an error, not a row. */
  private static final DataException IGNORED = new DataException("ignored null value");

  private TableWriter tableFor(String topic) {
    return tables.computeIfAbsent(config.tablePath(topic), path -> new TableWriter(path, conf, config));
  }

  /**
   * Retries a passing failure for at most a minute (or delta.commit.retry.timeout.ms if shorter), on
   * the real clock: this blocks open(), Connect's rebalance callback, in which the consumer does not poll.
   */
  private <T> T withRetries(String what, java.util.function.Supplier<T> action) {
    RetryBudget budget = new RetryPolicy(RetryPolicy.UNLIMITED_ATTEMPTS,
        Duration.ofMillis(Math.min(config.commitRetryTimeoutMs(), 60_000)), Duration.ZERO, OPEN_BACKOFF).start();
    while (true) {
      try {
        return action.get();
      } catch (RuntimeException e) {
        OptionalLong backoff = Transience.isTransient(e) ? budget.nextDelayMillis() : OptionalLong.empty();
        if (backoff.isEmpty()) {
          String tried = budget.failedAttempts() > 1
              ? " (" + budget.failedAttempts() + " attempts in " + budget.elapsedMillis() + " ms)" : "";
          throw new ConnectException("Could not " + what + tried + ". " + ServiceHint.of(e) + " Error: " + e, e);
        }
        LOG.warn("Could not {} (retrying in {} ms): {}", what, backoff.getAsLong(), e.toString());
        sleep(backoff.getAsLong());
      }
    }
  }

  private static final Backoff OPEN_BACKOFF = Backoff.ofMillis(250, 5_000);

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("Interrupted", e);
    }
  }

  private static String resumeOffsets(Map<TopicPartition, Long> versions) {
    Map<String, String> out = new TreeMap<>();
    versions.forEach((tp, v) -> out.put(tp.toString(), v < 0 ? "group offset" : String.valueOf(v + 1)));
    return out.toString();
  }

  private static Map<String, Long> toStrings(Map<TopicPartition, Long> offsets) {
    Map<String, Long> out = new HashMap<>();
    offsets.forEach((tp, v) -> out.put(tp.toString(), v));
    return out;
  }
}
