package io.kcdelta.table;

import io.kcdelta.aws.S3AccessCheck;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.metrics.PartitionMetrics;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.ErrantRecords;
import io.kcdelta.record.RecordCheck;
import io.kcdelta.record.RecordCheck.Deleted;
import io.kcdelta.record.RecordCheck.Errant;
import io.kcdelta.record.RecordCheck.Row;
import io.kcdelta.record.RecordCheck.Verdict;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.record.TableRoutes;
import io.kcdelta.record.TableState;
import io.kcdelta.table.DeltaCommitter.Committed;
import io.kcdelta.table.DeltaCommitter.Failed;
import io.kcdelta.table.DeltaCommitter.Fenced;
import io.kcdelta.table.DeltaCommitter.Outcome;
import io.kcdelta.table.DeltaCommitter.TableChangedException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The exactly-once protocol of one sink task, top to bottom.
 *
 * <ol>
 *   <li>{@link #open}: the Delta log, not Kafka, says where each partition resumes: the txn version
 *       of its appId + 1. The consumer is sought there. Routed by field ({@code ${field:...}}), a
 *       partition writes to many tables and none says where it resumes: it resumes at the group
 *       offset, which {@link #preCommit} moves only past what is durable in every table or reported
 *       errant (see {@link PartitionProgress}).
 *   <li>{@link #put}: records at or below what their table already holds or buffers are
 *       redeliveries and are dropped; the rest are buffered into their table's open files, or
 *       reported as errant. A table is committed once its oldest buffered record waited {@code
 *       flush.interval.ms}, or once it holds {@code flush.size.bytes}.
 *   <li>Commit: files finished, then the batch is handed to the table's {@link CommitGroup} (this
 *       connector's tasks in this worker), whose one Delta transaction adds the files of all its
 *       members together with one SetTransaction per Kafka partition, after checking that the table
 *       still holds the versions each task expects (else another task owns the partitions now: that
 *       task's batch is dropped and its partitions are sought back to what the table holds). At
 *       most one batch per table is in flight; its outcome is taken at the next put() or close().
 *   <li>{@link #preCommit}: only offsets durable in the Delta log (routed: in every table) go to
 *       Kafka.
 *   <li>{@link #close}: buffered data of the closed partitions is committed first.
 * </ol>
 *
 * Anything that loses buffered rows (a failed upload, a refused commit) drops the table's whole
 * batch, takes back its batch in flight (or waits for the commit that has it), and seeks its
 * partitions back to the last durable offset, so rows are re-read, never skipped or doubled.
 * Connect applies a seek at the start of its next poll (or right after an open() in the same
 * rebalance); every record of those partitions fetched before is stale: the rest of the put(), a
 * redelivery of the same batch after a RetriableException (the same record objects), a batch
 * fetched in the rebalance whose close() asked for the seek. What the poll after fetches is fresh,
 * also right after a RetriableException, when a revocation emptied the retained batch.
 */
public final class DeltaSinkWriter {
  private final DeltaSinkConfig config;
  private final SinkTaskContext context;
  private final Configuration conf;
  private final DeltaCommitter committer;
  private final SinkMetrics metrics;
  private final RecordOrigin origin;
  private final LongSupplier clock;
  private final RecordCheck check;
  private final TableRoutes routes;
  private final boolean routesByField;
  private final ErrantRecords errant;
  private final OpenFileBudget openFiles;
  private final TableFailures failures;
  private final CommitGroups groups;

  /** The S3 half of the preflight when a table is first opened; DynamoDB's is the log read's. */
  private final S3AccessCheck access;

  /**
   * In the order the tables were first written to, which follows from the records alone: the order
   * of commits in a put() then does not depend on where the tables live (their paths' hash codes),
   * so a simulated schedule replays from its seed.
   */
  private final Map<String, Table> tables = new LinkedHashMap<>();

  private final PartitionOffsets offsets;
  private boolean failed;

  /** put() calls so far: Connect's polls, each delivering one batch (maybe empty). */
  private long polls;

  private boolean inPut;

  /** The records of the last put() that threw RetriableException, by the poll that fetched them. */
  private final Map<SinkRecord, Long> retained = new IdentityHashMap<>();

  /**
   * The tables of this put()'s records routed by field: a {@link Table}, or the DataException that
   * says why the record has none.
   */
  private final Map<SinkRecord, Object> routed = new IdentityHashMap<>();

  /**
   * @param groups the commit groups of the worker this task runs in: {@link CommitGroups#jvm()}
   */
  public DeltaSinkWriter(
      DeltaSinkConfig config,
      SinkTaskContext context,
      Configuration conf,
      ErrantRecordReporter reporter,
      SinkMetrics metrics,
      RecordOrigin origin,
      LongSupplier clock,
      CommitGroups groups) {
    this(config, context, conf, reporter, metrics, origin, clock, groups, OpenFileBudget.ofHeap());
  }

  DeltaSinkWriter(
      DeltaSinkConfig config,
      SinkTaskContext context,
      Configuration conf,
      ErrantRecordReporter reporter,
      SinkMetrics metrics,
      RecordOrigin origin,
      LongSupplier clock,
      CommitGroups groups,
      OpenFileBudget openFiles) {
    this.config = config;
    this.context = context;
    this.conf = conf;
    this.metrics = metrics;
    this.origin = origin;
    this.clock = clock;
    this.openFiles = openFiles;
    this.groups = groups;
    this.committer = DeltaCommitter.of(config);
    this.check = new RecordCheck(config, origin);
    this.routes = new TableRoutes(config, origin);
    this.routesByField = config.routesByField();
    this.errant = new ErrantRecords(reporter, metrics);
    this.failures = new TableFailures(context, clock, config.commitRetryTimeoutMs(), conf);
    this.access = new S3AccessCheck(conf);
    this.offsets = new PartitionOffsets(metrics);
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
      if (routes.byField(tp.topic())) {
        // No table says where it resumes: Connect fetches from the group offset.
        offsets.openedRouted(tp);
      } else {
        byTable.computeIfAbsent(tableFor(tp.topic()), t -> new ArrayList<>()).add(tp);
      }
    }
    byTable.forEach(
        (table, tps) -> {
          try {
            access.check(table.path());
            resume(table, tps, false);
          } catch (RuntimeException e) {
            failures.failUnlessTransient(
                table.path(), "Reading the Delta log of " + table.path(), e);
            ProtocolLog.openDeferred(table, tps, e);
            tps.forEach(tp -> offsets.unresolved(tp, table));
          }
        });
    byTable.keySet().forEach(t -> t.maintains(offsets.holdsFirstPartition(t)));
    // Connect applies every seek asked so far right after open() returns, before this poll's fetch:
    // also those close() asked for in the same rebalance.
    offsets.seeksApplyAtPoll(polls + 1);
  }

  /** Reads the tables open() could not, before any record is taken. */
  private void resolveLateOpens() {
    offsets
        .unresolvedByTable()
        .forEach(
            (table, tps) -> {
              try {
                access.check(table.path());
                resume(table, tps, true);
              } catch (RuntimeException e) {
                throw failures.retriableOrFail(
                    table, "Reading the Delta log of " + table.path(), e);
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
          // From put() (late) the seek precedes the next poll's fetch; from open(), this poll's.
          offsets.opened(tp, table, version, late && version >= 0 ? polls + 1 : 0);
          if (version >= 0) {
            seeks.put(tp, version + 1);
          }
        });
    context.offset(seeks);
    ProtocolLog.resuming(table, versions, late);
  }

  // ---------------------------------------------------------------- put

  public void put(Collection<SinkRecord> records) {
    // Connect calls put() once per poll of its consumer, with no records or many.
    polls++;
    inPut = true;
    try {
      resolveLateOpens();
      long now = clock.getAsLong();
      route(records, now);
      // Only a table without a schema yet needs the batch looked at before its records.
      boolean newTable = tables.values().stream().anyMatch(t -> t.state.batchSchema() == null);
      check.beforeBatch(newTable ? records : List.of(), this::tableOf);
      for (SinkRecord record : records) {
        accept(record, now, fetchedInPoll(record));
      }
      commitDueTables(now);
      releaseIdleRoutedTables(now);
    } catch (RetriableException e) {
      offsets.publish();
      retain(records);
      throw e;
    } catch (RuntimeException e) {
      failed = true;
      throw e;
    } finally {
      inPut = false;
      routed.clear();
    }
    retained.clear();
    offsets.publish();
  }

  /**
   * Connect keeps the batch of a put() that threw RetriableException and delivers the same record
   * objects again (minus revoked partitions' records) until a put() takes them; a record not among
   * them was fetched by this poll.
   */
  private long fetchedInPoll(SinkRecord record) {
    Long retainedFrom = retained.get(record);
    return retainedFrom != null ? retainedFrom : polls;
  }

  private void retain(Collection<SinkRecord> records) {
    Map<SinkRecord, Long> next = new IdentityHashMap<>();
    for (SinkRecord r : records) {
      next.put(r, fetchedInPoll(r));
    }
    retained.clear();
    retained.putAll(next);
  }

  /**
   * Finds the table of each record of a topic routed by field, and reads what each table holds of
   * the task's partitions when it is first named: its txn versions, by which it drops what it holds
   * already and fences other writers.
   */
  private void route(Collection<SinkRecord> records, long now) {
    if (!routesByField) {
      return; // nothing to look up per record (each lookup of its partition allocates)
    }
    for (SinkRecord record : records) {
      PartitionProgress p = offsets.of(origin.partition(record));
      if (p == null || !p.routed()) {
        continue;
      }
      String path;
      try {
        path = routes.pathOf(record);
      } catch (DataException e) {
        routed.put(record, e);
        continue;
      }
      Table table = tableAt(path);
      if (p.lane(table) == null) {
        readLanes(record.topic(), table);
      }
      table.named(now);
      routed.put(record, table);
    }
  }

  private void readLanes(String topic, Table table) {
    List<TopicPartition> tps = offsets.routedWithoutLane(topic, table);
    Map<TopicPartition, Long> versions;
    try {
      access.check(table.path());
      versions = committer.txnVersions(table, tps);
    } catch (RuntimeException e) {
      throw failures.retriableOrFail(table, "Reading the Delta log of " + table.path(), e);
    }
    table.healthy();
    versions.forEach((tp, v) -> offsets.of(tp).addLane(table, v));
    table.maintains(offsets.holdsFirstPartition(table));
    ProtocolLog.routedTo(table, versions);
  }

  /** The state of the table the record writes to (null: not opened, or no table). */
  private TableState tableOf(SinkRecord record) {
    PartitionProgress p = offsets.of(origin.partition(record));
    if (p != null && p.routed()) {
      return routed.get(record) instanceof Table t ? t.state : null;
    }
    return p == null ? null : p.table.state;
  }

  private void accept(SinkRecord record, long now, long fetchedInPoll) {
    TopicPartition tp = origin.partition(record);
    long offset = origin.offset(record);
    PartitionProgress p = offsets.of(tp);
    if (p == null) {
      throw origin.notOpened(record);
    }
    if (p.routed()) {
      acceptRouted(record, p, now, fetchedInPoll);
      return;
    }
    TableLane lane = p.lane(p.table);
    if (p.isRedelivery(lane, offset, fetchedInPoll)) {
      metrics.recordSkipped();
      return;
    }
    if (write(record, p.table, tp, offset, now)) {
      lane.seen(offset);
      written(p.table, now);
    }
  }

  /**
   * A record of a partition routed by field: each table drops what it holds or buffers already; a
   * record without a table is reported once, not again when the partition is re-read.
   */
  private void acceptRouted(SinkRecord record, PartitionProgress p, long now, long fetchedInPoll) {
    TopicPartition tp = origin.partition(record);
    long offset = origin.offset(record);
    if (p.isStale(fetchedInPoll)) {
      metrics.recordSkipped();
      return;
    }
    p.received(offset);
    Object route = routed.get(record);
    if (!(route instanceof Table table)) {
      if (p.processedBefore(offset)) {
        metrics.recordSkipped();
      } else if (record.value() == null) {
        // A tombstone names no table: behavior.on.null.values decides, as for any table.
        Verdict verdict = check.check(record, null);
        if (verdict instanceof Errant bad) {
          errant.report(record, bad);
        } else {
          metrics.recordSkipped();
        }
      } else {
        errant.report(record, new Errant((DataException) route, SinkMetrics.ErrantCause.ROUTE));
      }
      p.processed(offset);
      return;
    }
    TableLane lane = p.lane(table);
    if (offset <= lane.lastSeen) {
      metrics.recordSkipped();
      p.processed(offset);
      return;
    }
    if (write(record, table, tp, offset, now)) {
      lane.seen(offset);
      p.processed(offset);
      written(table, now);
    } else {
      // The table's rewind sought only what it had buffered: this record must come again too.
      context.offset(tp, p.rereadFrom(offset, polls + 1));
    }
  }

  /**
   * Routed by field, a task names tables as its records come: a table it had no record for in two
   * flush intervals is let go (its files are committed, its commit group left), and read again when
   * a record names it.
   */
  private void releaseIdleRoutedTables(long now) {
    if (!routesByField) {
      return;
    }
    tables
        .values()
        .removeIf(
            t -> {
              boolean release =
                  offsets.onlyRouted(t) && t.idleSince(now, 2 * config.flushIntervalMs());
              if (release) {
                offsets.forget(t);
                t.leave();
              }
              return release;
            });
  }

  private void written(Table table, long now) {
    table.received(now);
    if (openFiles.rowWritten()) {
      boundOpenFiles();
    }
  }

  /**
   * @return false when the table's batch was dropped and its partitions rewound instead
   */
  private boolean write(SinkRecord record, Table table, TopicPartition tp, long offset, long now) {
    Verdict verdict = check.check(record, table.state);
    if (verdict instanceof Row row) {
      try {
        table.files.write(
            row.value(), row.layout(), row.key(), tp, offset, now, record.timestamp());
        metrics.recordAccepted();
        return true;
      } catch (DataException e) {
        // A value the encoder rejects (e.g. a decimal wider than its column); it checks the whole
        // value before writing any of it, so the open file stays intact.
        verdict = check.cannotBeWritten(record, table.state, e, SinkMetrics.ErrantCause.VALUE);
      } catch (IOException | RuntimeException e) {
        rewindTable(table, "writing a data file", e);
        return false;
      }
    }
    if (verdict instanceof Deleted deleted) {
      try {
        table.files.delete(deleted.key(), tp, offset, now, record.timestamp());
        metrics.recordAccepted();
        return true;
      } catch (DataException e) {
        verdict = check.cannotBeWritten(record, table.state, e, SinkMetrics.ErrantCause.KEY);
      }
    }
    if (verdict instanceof Errant bad) {
      errant.report(record, bad);
    } else {
      metrics.recordSkipped();
    }
    // Not a row, but its offset is covered by the next commit.
    table.files.markProcessed(tp, offset, now, record.timestamp());
    return true;
  }

  /** Finishes the task's largest open files early while they hold more memory than the budget. */
  private void boundOpenFiles() {
    for (Table t = openFiles.overBudget(tables.values());
        t != null;
        t = openFiles.overBudget(tables.values())) {
      try {
        t.files.finishLargest();
        t.metrics.finishedEarly();
      } catch (IOException | RuntimeException e) {
        rewindTable(t, "finishing a data file early", e);
      }
    }
  }

  // ---------------------------------------------------------------- commit

  /**
   * Hands in the batch of each table that is due (or whose commit group has a round open), takes
   * the outcomes of batches in flight, and commits a round that waited long enough.
   */
  private void commitDueTables(long now) {
    for (Table table : tables.values()) {
      settle(table);
      table.reportBuffered();
      if (table.inFlight == null
          && !table.files.isEmpty()
          && (now - table.files.oldestRecordMs() >= config.flushIntervalMs()
              || table.group.roundOpen()
              || reachedFlushSize(table))) {
        handIn(table, now);
      }
      table.group.commitIfDue(now);
      settle(table);
      table.publish();
    }
  }

  /** Whether the table's buffered bytes reached flush.size.bytes (its open files measured now). */
  private boolean reachedFlushSize(Table table) {
    long limit = config.flushSizeBytes();
    if (limit <= 0) {
      return false;
    }
    table.files.openSizes();
    return table.files.fileBytes() >= limit;
  }

  /** Finishes the table's files and hands the batch to its commit group. */
  private void handIn(Table table, long now) {
    errant.awaitReports();
    Batch batch;
    table.metrics.handedIn();
    try {
      batch = table.drain();
    } catch (IOException | RuntimeException e) {
      table.metrics.failed();
      rewindTable(table, "finishing data files", e);
      return;
    }
    offsets.handedIn(table);
    Map<TopicPartition, Long> expected =
        offsets.expectedVersions(table, batch.lastOffsets().keySet());
    // Another member's round may commit the batch long before this task's next put() (on an idle
    // stream up to offset.flush.interval.ms): its partition gauges follow the commit at once.
    Map<PartitionMetrics, Long> gauges = offsets.metricsOf(batch.lastOffsets());
    table.inFlight =
        table.group.handIn(
            table,
            batch,
            expected,
            now,
            o -> {
              if (o instanceof Committed) {
                gauges.forEach(PartitionMetrics::committedAtLeast);
              }
            });
  }

  /**
   * Commits the table's batch now, or drops it and rewinds its partitions; throws only to retry or
   * fail.
   */
  private void commitNow(Table table) {
    settleNow(table);
    if (!table.files.isEmpty()) {
      handIn(table, clock.getAsLong());
      settleNow(table);
    }
  }

  /** Has the group commit the table's batch in flight now, without waiting for the round. */
  private void settleNow(Table table) {
    if (table.inFlight != null) {
      table.group.commitNow(table.inFlight);
      settle(table);
    }
  }

  /**
   * Takes the outcome of the table's batch in flight, if the group decided it: offsets durable, or
   * the batch dropped and the partitions rewound, or (the commit failed) the files kept for the
   * next attempt and the RetriableException that asks for it thrown.
   */
  private void settle(Table table) {
    CommitGroup.Entry entry = table.inFlight;
    Outcome outcome = entry == null ? null : entry.outcomeNow();
    if (outcome == null) {
      return;
    }
    table.inFlight = null;
    if (inDoubt(outcome)) {
      // The files are finished and stay valid: keep them for the next attempt.
      table.metrics.failed();
      table.files.requeue(entry.batch);
      offsets.requeued(table);
      throw failures.retriableOrFail(
          table, "The commit to " + table.path(), ((Failed) outcome).cause());
    }
    conclude(table, entry, outcome);
    if (outcome instanceof Failed f) {
      rewindTable(table, f.cause().getMessage(), f.cause());
    } else if (outcome instanceof Fenced) {
      rewindTable(table, null, null);
    }
  }

  /**
   * The commit failed for a reason other than the table changing under the batch: it may have
   * landed (a timeout after the log store accepted it), so its files are neither deleted nor
   * booked.
   */
  private static boolean inDoubt(Outcome outcome) {
    return outcome instanceof Failed f && !(f.cause() instanceof TableChangedException);
  }

  /**
   * Books a decided batch: its offsets durable (ours, or the fencing writer's), or its files
   * deleted.
   */
  private void conclude(Table table, CommitGroup.Entry entry, Outcome outcome) {
    Batch batch = entry.batch;
    if (outcome instanceof Failed) {
      offsets.decided(table, Map.of());
      table.metrics.failed();
      table.files.deleteUncommitted(batch.files());
      table.decided();
      return;
    }
    table.healthy();
    if (outcome instanceof Committed c) {
      offsets.decided(table, batch.lastOffsets());
      table.committed(batch);
      table.metrics.committed(batch.size(), c.version(), c.rebased(), entry.latencyMs());
      ProtocolLog.committed(table, c.version(), batch, entry);
    } else if (outcome instanceof Fenced f) {
      table.files.deleteUncommitted(batch.files());
      table.metrics.fenced(entry.latencyMs());
      ProtocolLog.fenced(table, batch, f.versions(), entry.expected);
      offsets.decided(table, f.versions());
    } else {
      // Deferred: only tombstones or errant records, which are done with.
      offsets.decided(table, Map.of());
      ProtocolLog.nothingToCommit(table, batch);
    }
    table.decided();
  }

  /**
   * Takes back the table's batch in flight, or waits for the commit that has it, so that nothing is
   * re-read that a commit may still add.
   */
  private void withdraw(Table table) {
    CommitGroup.Entry entry = table.inFlight;
    if (entry == null) {
      return;
    }
    table.inFlight = null;
    Outcome outcome = table.group.withdraw(entry);
    if (outcome == null) {
      table.files.deleteUncommitted(entry.batch.files());
    } else if (!inDoubt(outcome)) {
      conclude(table, entry, outcome);
    }
  }

  /**
   * Drops the table's buffered batch and seeks its partitions back to their last durable offset
   * (those being closed excepted: they are no longer ours, their next owner reads the table). A
   * persistent cause (S3 down) fails the task once the retry budget is spent.
   */
  private void rewindTable(Table table, String why, Exception cause) {
    withdraw(table);
    table.abort();
    // Asked in put(), the seek precedes the next poll's fetch; asked in close(), within a
    // rebalance, the one after (unless an open() follows: see open()).
    Map<TopicPartition, Long> seeks = offsets.rewind(table, inPut ? polls + 1 : polls + 2);
    context.offset(seeks);
    if (cause != null) {
      ProtocolLog.dropped(table, why, seeks, cause);
      // Fails the task once the budget is spent; until then the seek applies after put() returns.
      failures.retriableOrFail(table, why + " for " + table.path(), cause);
    }
  }

  // ---------------------------------------------------------------- preCommit / close / stop

  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> current) {
    if (routesByField) {
      // Routed, a record without a table counts as done once reported, not with a commit.
      errant.awaitReports();
    }
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
      for (TableLane lane : p == null ? List.<TableLane>of() : p.lanes()) {
        Table t = lane.table;
        if (t.files.partitions().contains(tp)
            || (t.inFlight != null && t.inFlight.batch.lastOffsets().containsKey(tp))) {
          affected.add(t);
        }
      }
    }
    offsets.closing(partitions);
    try {
      for (Table table : affected) {
        if (failed) {
          withdraw(table);
          table.abort();
          continue;
        }
        try {
          commitNow(table);
        } catch (RuntimeException e) {
          // Not durable: the closed partitions' next owner re-reads them from the table, the
          // partitions that stay are sought back here.
          ProtocolLog.closeNotCommitted(table, partitions, e);
          rewindTable(table, null, null);
        }
      }
    } finally {
      offsets.closed(partitions);
      offsets.publish();
      affected.forEach(Table::publish);
    }
    tables
        .values()
        .removeIf(
            t -> {
              boolean idle = !offsets.writesTo(t) && t.files.isEmpty() && t.inFlight == null;
              if (idle) {
                t.leave();
              }
              return idle;
            });
    tables.values().forEach(t -> t.maintains(offsets.holdsFirstPartition(t)));
  }

  public void stop() {
    for (Table table : tables.values()) {
      withdraw(table);
      table.abort();
      table.leave();
    }
    tables.clear();
    offsets.clear();
  }

  // ---------------------------------------------------------------- helpers

  private Table tableFor(String topic) {
    return tableAt(config.tablePath(topic));
  }

  private Table tableAt(String path) {
    return tables.computeIfAbsent(
        path, p -> new Table(p, conf, config, groups, metrics.forTable(p), openFiles));
  }
}
