package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.testutil.DeltaTables;
import io.kcdelta.testutil.ParquetRows;
import io.kcdelta.testutil.StandaloneTypes;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once protocol against a real local Delta table, with Connect played by a fake
 * context.
 */
class DeltaSinkWriterTest {
  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .name("Row")
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  private static final TopicPartition TP = new TopicPartition("events", 0);
  private static final TopicPartition TP2 = new TopicPartition("events", 1);
  private static final long FLUSH_MS = 1_000;

  /** Settings that put the table on {@link FailingLocalFileSystem}. */
  private static final String[] FAILING_FS = {
    "hadoop.fs.file.impl",
    FailingLocalFileSystem.class.getName(),
    "hadoop.fs.file.impl.disable.cache",
    "true"
  };

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);

  /** The worker all of a test's writers run in. */
  private final CommitGroups worker = new CommitGroups();

  private final Configuration conf = new Configuration();
  private String table;

  @BeforeEach
  void setUp() {
    table = dir.resolve("t").toUri().toString();
  }

  private DeltaSinkConfig config(String... kv) {
    Map<String, String> p = new HashMap<>();
    p.put("name", "sink");
    p.put("delta.table.path", table);
    p.put("flush.interval.ms", String.valueOf(FLUSH_MS));
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return new DeltaSinkConfig(p);
  }

  private DeltaSinkWriter writer(FakeSinkContext ctx, String... kv) {
    return writer(ctx, RecordOrigin.ORIGINAL, kv);
  }

  private DeltaSinkWriter writer(FakeSinkContext ctx, RecordOrigin origin, String... kv) {
    DeltaSinkConfig config = config(kv);
    return new DeltaSinkWriter(
        config,
        ctx,
        HadoopConfigurationFactory.create(config),
        ctx.reporter,
        SinkMetrics.none(),
        origin,
        clock::get,
        worker);
  }

  private static SinkRecord record(long offset) {
    return record(TP, offset);
  }

  private static SinkRecord record(TopicPartition tp, long offset) {
    Struct value = new Struct(SCHEMA).put("id", offset).put("name", "row-" + offset);
    return new SinkRecord(tp.topic(), tp.partition(), null, null, SCHEMA, value, offset);
  }

  private static List<SinkRecord> records(long from, long to) {
    return records(TP, from, to);
  }

  private static List<SinkRecord> records(TopicPartition tp, long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long o = from; o < to; o++) {
      out.add(record(tp, o));
    }
    return out;
  }

  /** Puts the records, lets the flush interval pass, and triggers the commit with an empty put. */
  private void putAndCommit(DeltaSinkWriter w, List<SinkRecord> records) {
    w.put(records);
    clock.addAndGet(FLUSH_MS);
    w.put(List.of());
  }

  private Map<Long, Integer> idCounts() throws Exception {
    Map<Long, Integer> counts = new HashMap<>();
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
    for (AddFile add : DeltaLog.forTable(conf, table).update().getAllFiles()) {
      for (Group g :
          ParquetRows.read(
              conf,
              new org.apache.hadoop.fs.Path(
                  root, new org.apache.hadoop.fs.Path(new URI(add.getPath()))))) {
        counts.merge(g.getLong("id", 0), 1, Integer::sum);
      }
    }
    return counts;
  }

  private long txnVersion() {
    return txnVersion(TP);
  }

  private long txnVersion(TopicPartition tp) {
    return DeltaLog.forTable(conf, table)
        .startTransaction()
        .txnVersion("sink-" + tp.topic() + "-" + tp.partition());
  }

  @Test
  void commitsOnlyAfterTheFlushIntervalAndPreCommitReportsOnlyDurableOffsets() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    assertTrue(ctx.seeks.isEmpty(), "a new table has no offsets to resume from");

    w.put(records(0, 10));
    assertEquals(-1, txnVersion());
    assertTrue(
        w.preCommit(Map.of(TP, new OffsetAndMetadata(10))).isEmpty(), "nothing is durable yet");

    clock.addAndGet(FLUSH_MS);
    w.put(List.of());
    assertEquals(9, txnVersion());
    assertEquals(
        Map.of(TP, new OffsetAndMetadata(10)), w.preCommit(Map.of(TP, new OffsetAndMetadata(10))));
    assertEquals(10, idCounts().size());
  }

  @Test
  void aTableCommitsOnceItHoldsFlushSizeBytesWithoutWaitingForTheInterval() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "flush.size.bytes", "4000");
    w.open(List.of(TP));
    w.put(records(0, 10));
    assertEquals(-1, txnVersion(), "10 rows are far from 4000 bytes");
    w.put(records(10, 1000));
    assertEquals(999, txnVersion(), "committed at once, the interval not over");
    assertEquals(1000, idCounts().size());

    // Off: the same rows wait for the interval.
    table = dir.resolve("t2").toUri().toString();
    DeltaSinkWriter onTime = writer(new FakeSinkContext(), "flush.size.bytes", "0");
    onTime.open(List.of(TP));
    onTime.put(records(0, 1000));
    assertEquals(-1, txnVersion());
    clock.addAndGet(FLUSH_MS);
    onTime.put(List.of());
    assertEquals(999, txnVersion());
  }

  @Test
  void aTopicWithATableOfItsOwnIsWrittenThereAndResumesFromThere() throws Exception {
    String ordersTable = dir.resolve("orders-table").toUri().toString();
    String template = dir.resolve("by-topic").toUri() + "/${topic}";
    TopicPartition orders = new TopicPartition("orders.v1", 0);
    TopicPartition payments = new TopicPartition("payments", 0);
    table = template;
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "delta.table.path.orders.v1", ordersTable);
    w.open(List.of(orders, payments));
    List<SinkRecord> both = new ArrayList<>(records(orders, 0, 5));
    both.addAll(records(payments, 0, 3));
    putAndCommit(w, both);
    table = ordersTable;
    assertEquals(4, txnVersion(orders));
    assertEquals(-1, txnVersion(payments));
    assertEquals(5, idCounts().size());
    table = template.replace("${topic}", "payments");
    assertEquals(2, txnVersion(payments));
    assertEquals(3, idCounts().size());
    w.stop();

    // A restart resumes each partition from its own table.
    table = template;
    FakeSinkContext again = new FakeSinkContext();
    writer(again, "delta.table.path.orders.v1", ordersTable).open(List.of(orders, payments));
    assertEquals(Map.of(orders, 5L, payments, 3L), again.seeks);
  }

  @Test
  void redeliveredRecordsAreDroppedAndARestartResumesFromTheLog() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    putAndCommit(w, records(0, 10));
    putAndCommit(w, records(5, 15)); // 5..9 again: a redelivery
    w.stop();

    FakeSinkContext ctx2 = new FakeSinkContext();
    DeltaSinkWriter restarted = writer(ctx2);
    restarted.open(List.of(TP));
    assertEquals(Map.of(TP, 15L), ctx2.seeks, "resume at txn version + 1");
    putAndCommit(restarted, records(12, 20)); // records the consumer group may still replay
    Map<Long, Integer> counts = idCounts();
    assertEquals(20, counts.size());
    counts.forEach((id, n) -> assertEquals(1, n, "copies of " + id));
    assertEquals(19, txnVersion());
  }

  @Test
  void aZombieThatLostItsPartitionCannotCommitIt() throws Exception {
    // In another worker than the new owner: no commit group in common.
    FakeSinkContext zombieCtx = new FakeSinkContext();
    DeltaSinkWriter zombie = writer(zombieCtx, DeltaSinkConfig.COMMIT_GROUP, "false");
    zombie.open(List.of(TP));
    zombie.put(records(0, 10)); // buffered, not yet committed

    // The partition moves to a new owner, which commits first.
    FakeSinkContext ownerCtx = new FakeSinkContext();
    DeltaSinkWriter owner = writer(ownerCtx, DeltaSinkConfig.COMMIT_GROUP, "false");
    owner.open(List.of(TP));
    putAndCommit(owner, records(0, 12));
    assertEquals(11, txnVersion());

    clock.addAndGet(FLUSH_MS);
    zombie.put(List.of()); // the zombie's flush is due: its commit must be refused
    assertEquals(11, txnVersion(), "the zombie's commit was refused");
    assertEquals(Map.of(TP, 12L), zombieCtx.seeks, "the zombie re-reads from what the table holds");
    Map<Long, Integer> counts = idCounts();
    assertEquals(12, counts.size());
    counts.forEach((id, n) -> assertEquals(1, n, "copies of " + id));
    assertTrue(zombie.preCommit(Map.of(TP, new OffsetAndMetadata(10))).get(TP).offset() == 12);
  }

  @Test
  void aZombieInTheNewOwnersCommitGroupIsFencedInTheSameRound() throws Exception {
    FakeSinkContext zombieCtx = new FakeSinkContext();
    DeltaSinkWriter zombie = writer(zombieCtx);
    zombie.open(List.of(TP));
    zombie.put(records(0, 10));

    FakeSinkContext ownerCtx = new FakeSinkContext();
    DeltaSinkWriter owner = writer(ownerCtx);
    owner.open(List.of(TP));
    owner.put(records(0, 12));
    clock.addAndGet(FLUSH_MS);
    owner.put(List.of()); // due: the round waits for the zombie's rows, which are buffered too
    assertEquals(-1, txnVersion(), "the round waits for the other member");
    zombie.put(List.of()); // hands in the last awaited batch: the round commits

    assertEquals(11, txnVersion(), "the owner's batch, handed in first, committed");
    assertEquals(Map.of(TP, 12L), zombieCtx.seeks, "the zombie re-reads from what the table holds");
    owner.put(List.of()); // takes its outcome
    assertEquals(12, owner.preCommit(Map.of(TP, new OffsetAndMetadata(0))).get(TP).offset());
    Map<Long, Integer> counts = idCounts();
    assertEquals(12, counts.size());
    counts.forEach((id, n) -> assertEquals(1, n, "copies of " + id));
  }

  @Test
  void aRoundCommitsAfterItsLingerWithoutTheMemberThatDoesNotHandIn() throws Exception {
    FakeSinkContext idleCtx = new FakeSinkContext();
    DeltaSinkWriter idle = writer(idleCtx);
    idle.open(List.of(TP));
    idle.put(records(0, 3)); // rows buffered, then this task is never polled again

    FakeSinkContext busyCtx = new FakeSinkContext();
    DeltaSinkWriter busy = writer(busyCtx);
    busy.open(List.of(TP2));
    busy.put(records(TP2, 0, 5));
    clock.addAndGet(FLUSH_MS);
    busy.put(List.of());
    assertEquals(-1, txnVersion(TP2), "waits for the other member first");
    clock.addAndGet(CommitGroups.lingerMs(config()) - 1);
    busy.put(List.of());
    assertEquals(-1, txnVersion(TP2), "still within the linger");
    clock.addAndGet(1);
    busy.put(List.of());
    assertEquals(4, txnVersion(TP2), "committed without the idle member");
    assertEquals(-1, txnVersion());
  }

  @Test
  void closeCommitsWhatIsBuffered() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    w.put(records(0, 7));
    w.close(List.of(TP));
    assertEquals(6, txnVersion());
    assertEquals(7, idCounts().size());
  }

  @Test
  void tombstonesAreSkippedButTheirOffsetsCommitted() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    List<SinkRecord> batch = new ArrayList<>(records(0, 3));
    batch.add(new SinkRecord(TP.topic(), TP.partition(), null, null, null, null, 3));
    putAndCommit(w, batch);
    assertEquals(3, txnVersion());
    assertEquals(3, idCounts().size());
    assertTrue(ctx.errant.isEmpty());
  }

  @Test
  void tombstonesFailWithoutAReporterWhenConfiguredSo() {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        new DeltaSinkWriter(
            config("behavior.on.null.values", "fail"),
            ctx,
            conf,
            null,
            SinkMetrics.none(),
            RecordOrigin.ORIGINAL,
            clock::get,
            worker);
    w.open(List.of(TP));
    DataException e =
        assertThrows(
            DataException.class,
            () ->
                w.put(
                    List.of(
                        new SinkRecord(TP.topic(), TP.partition(), null, null, null, null, 0))));
    assertTrue(e.getMessage().contains("behavior.on.null.values"), e.getMessage());
  }

  @Test
  void recordsWithoutSchemaOrWithAnIncompatibleSchemaGoToTheReporter() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "delta.schema.evolution", "none");
    w.open(List.of(TP));
    Schema wider =
        SchemaBuilder.struct()
            .name("Row")
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("extra", Schema.OPTIONAL_INT32_SCHEMA)
            .build();
    Schema wrongType = SchemaBuilder.struct().name("Row").field("id", Schema.STRING_SCHEMA).build();
    List<SinkRecord> batch = new ArrayList<>(records(0, 2));
    // Neither a Struct nor a JSON object.
    batch.add(new SinkRecord(TP.topic(), 0, null, null, null, 42L, 2));
    batch.add(new SinkRecord(TP.topic(), 0, null, null, wider, new Struct(wider).put("id", 3L), 3));
    batch.add(
        new SinkRecord(
            TP.topic(), 0, null, null, wrongType, new Struct(wrongType).put("id", "x"), 4));
    batch.add(record(5));
    putAndCommit(w, batch);
    assertEquals(List.of(2L, 3L, 4L), ctx.errant.stream().map(SinkRecord::kafkaOffset).toList());
    assertTrue(
        ctx.errors.get(0).getMessage().contains("neither a Connect Struct nor a JSON object"),
        ctx.errors.get(0).getMessage());
    assertTrue(
        ctx.errors.get(1).getMessage().contains("delta.schema.evolution"),
        ctx.errors.get(1).getMessage());
    assertEquals(Map.of(0L, 1, 1L, 1, 5L, 1), idCounts());
    assertEquals(5, txnVersion());
  }

  @Test
  void newOptionalFieldsBecomeNullableColumns() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    Schema wider =
        SchemaBuilder.struct()
            .name("Row")
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("extra", Schema.OPTIONAL_INT32_SCHEMA)
            .build();
    List<SinkRecord> batch = new ArrayList<>(records(0, 2));
    batch.add(
        new SinkRecord(
            TP.topic(), 0, null, null, wider, new Struct(wider).put("id", 2L).put("extra", 7), 2));
    putAndCommit(w, batch);
    var schema =
        StandaloneTypes.ours(DeltaLog.forTable(conf, table).update().getMetadata().getSchema());
    assertEquals(List.of("id", "name", "extra"), schema.fieldNames());
    assertTrue(schema.field("extra").nullable());
    assertEquals(3, idCounts().size());
  }

  @Test
  void postingAConfigWhosePartitionColumnsDoNotFitTheExistingTableFailsValidation() {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    putAndCommit(w, records(0, 3));

    Map<String, String> props =
        new HashMap<>(
            Map.of(
                "name",
                "sink",
                "connector.class",
                "x",
                "topics",
                "events",
                "delta.table.path",
                table,
                "delta.table.partition.columns",
                "region"));
    var values = new io.kcdelta.DeltaSinkConnector().validate(props).configValues();
    List<String> errors =
        values.stream()
            .filter(v -> v.name().equals("delta.table.partition.columns"))
            .findFirst()
            .orElseThrow()
            .errorMessages();
    assertEquals(1, errors.size(), errors.toString());
    assertTrue(
        errors.get(0).contains("'region' is not a column of the existing table"), errors.get(0));
    assertTrue(errors.get(0).contains("columns: id, name"), errors.get(0));

    props.put("delta.table.partition.columns", "name");
    errors =
        new io.kcdelta.DeltaSinkConnector()
            .validate(props).configValues().stream()
                .filter(v -> v.name().equals("delta.table.partition.columns"))
                .findFirst()
                .orElseThrow()
                .errorMessages();
    assertTrue(errors.get(0).contains("is partitioned by []"), errors.get(0));
  }

  /**
   * Delta Standalone reads a log under one lock: without combining, N tasks opening at once while
   * S3 hangs made N slow reads one after another, and the last task learned of the outage after N.
   */
  @Test
  void tasksOfOneWorkerOpeningAtOnceWhileTheLogHangsShareOneReadAfterTheRunningOne()
      throws Exception {
    DeltaSinkWriter first = writer(new FakeSinkContext(), FAILING_FS);
    first.open(List.of(TP));
    putAndCommit(first, records(0, 10));
    int tasks = 8;
    List<Thread> opening = new ArrayList<>();
    CountDownLatch hold = new CountDownLatch(1);
    try {
      FailingLocalFileSystem.failLogReads = true;
      FailingLocalFileSystem.holdFailingLogReads = hold;
      FailingLocalFileSystem.logListings.set(0);
      for (int i = 0; i < tasks; i++) {
        DeltaSinkWriter w = writer(new FakeSinkContext(), FAILING_FS);
        TopicPartition tp = new TopicPartition("events", 10 + i);
        opening.add(new Thread(() -> w.open(List.of(tp)), "opens-" + tp));
      }
      opening.forEach(Thread::start);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (FailingLocalFileSystem.logListings.get() < 1
          || !opening.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
        assertTrue(System.nanoTime() < deadline, "the tasks never all waited for the log");
        Thread.onSpinWait();
      }
      hold.countDown();
      for (Thread t : opening) {
        t.join(30_000);
        assertFalse(t.isAlive(), t.getName() + " still opens");
      }
      assertEquals(2, FailingLocalFileSystem.logListings.get(), "listings of the Delta log");
    } finally {
      hold.countDown();
      FailingLocalFileSystem.holdFailingLogReads = null;
      FailingLocalFileSystem.failLogReads = false;
    }
  }

  @Test
  void aTableThatCannotBeReadInOpenIsReadByTheNextPutAndTheBatchFetchedMeanwhileIsStale()
      throws Exception {
    DeltaSinkWriter first = writer(new FakeSinkContext(), FAILING_FS);
    first.open(List.of(TP));
    putAndCommit(first, records(0, 10));
    first.stop();

    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, FAILING_FS);
    try {
      FailingLocalFileSystem.failLogReads = true;
      w.open(List.of(TP)); // does not hold up the rebalance
      assertTrue(ctx.seeks.isEmpty());
      // The consumer fetched from the group offset (0, say); the table is still unreadable.
      assertThrows(RetriableException.class, () -> w.put(records(0, 12)));
      assertTrue(ctx.timeoutMs > 0, "Connect backs off before it redelivers");
    } finally {
      FailingLocalFileSystem.failLogReads = false;
    }
    w.put(records(0, 12)); // the redelivery: resolves the partition, all of it stale
    assertEquals(Map.of(TP, 10L), ctx.seeks, "resume at txn version + 1");
    assertTrue(w.preCommit(Map.of(TP, new OffsetAndMetadata(12))).get(TP).offset() == 10);
    putAndCommit(w, records(10, 15)); // what the consumer delivers after the seek
    Map<Long, Integer> counts = idCounts();
    assertEquals(15, counts.size());
    counts.forEach((id, n) -> assertEquals(1, n, "copies of " + id));
    assertEquals(14, txnVersion());
  }

  @Test
  void aFailedUploadDropsTheBatchAndRereadsItEvenBeforeTheFirstCommit() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, FAILING_FS);
    w.open(List.of(TP));
    try {
      FailingLocalFileSystem.failParquet = true;
      w.put(records(3, 8)); // the group's position was 3; nothing is in the table yet
    } finally {
      FailingLocalFileSystem.failParquet = false;
    }
    assertEquals(Map.of(TP, 3L), ctx.seeks, "re-read from the first record received");
    assertTrue(w.preCommit(Map.of(TP, new OffsetAndMetadata(8))).isEmpty());

    putAndCommit(w, records(3, 8)); // what the consumer delivers after the seek
    assertEquals(Map.of(3L, 1, 4L, 1, 5L, 1, 6L, 1, 7L, 1), idCounts());
    assertEquals(7, txnVersion());
  }

  @Test
  void aBugWritingADataFileFailsTheTaskAtOnceInsteadOfBeingRetried() {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, FAILING_FS);
    w.open(List.of(TP));
    org.apache.kafka.connect.errors.ConnectException e;
    try {
      FailingLocalFileSystem.bug = new NullPointerException("injected bug");
      e =
          assertThrows(
              org.apache.kafka.connect.errors.ConnectException.class, () -> w.put(records(0, 3)));
    } finally {
      FailingLocalFileSystem.bug = null;
    }
    assertFalse(
        e instanceof RetriableException, "not retried for delta.commit.retry.timeout.ms: " + e);
    assertTrue(e.getMessage().contains("retrying cannot fix"), e.getMessage());
  }

  @Test
  void aValueTheEncoderRejectsIsErrantAndTheRowsAroundItLand() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    Schema money =
        SchemaBuilder.struct()
            .name("Row")
            .field("id", Schema.INT64_SCHEMA)
            .field(
                "amount",
                org.apache.kafka.connect.data.Decimal.builder(2)
                    .parameter("connect.decimal.precision", "5")
                    .build())
            .build();
    List<SinkRecord> batch = new ArrayList<>();
    for (long o = 0; o < 5; o++) {
      java.math.BigDecimal amount =
          o == 2 ? new java.math.BigDecimal("123456.78") : new java.math.BigDecimal("1.25");
      batch.add(
          new SinkRecord(
              TP.topic(),
              0,
              null,
              null,
              money,
              new Struct(money).put("id", o).put("amount", amount),
              o));
    }
    putAndCommit(w, batch);
    assertEquals(List.of(2L), ctx.errant.stream().map(SinkRecord::kafkaOffset).toList());
    assertTrue(ctx.errors.get(0).getMessage().contains("amount"), ctx.errors.get(0).getMessage());
    assertEquals(Map.of(0L, 1, 1L, 1, 3L, 1, 4L, 1), idCounts());
    assertEquals(4, txnVersion());
  }

  /** A table another writer created with these reader and writer features. */
  private void createTableWithFeatures(String readerFeatures, String writerFeatures)
      throws Exception {
    java.nio.file.Path log = dir.resolve("t").resolve("_delta_log");
    java.nio.file.Files.createDirectories(log);
    java.nio.file.Files.writeString(
        log.resolve("00000000000000000000.json"),
        String.join(
                "\n",
                "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":["
                    + readerFeatures
                    + "],\"writerFeatures\":["
                    + writerFeatures
                    + "]}}",
                "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
                    + "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
                    + "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}")
            + "\n");
  }

  @Test
  void aTableWithAFeatureTheConnectorDoesNotKnowFailsTheTaskAtOpenNamingIt() throws Exception {
    createTableWithFeatures("\"deletionVectors\"", "\"deletionVectors\",\"someFutureFeature\"");
    DeltaSinkWriter w = writer(new FakeSinkContext());
    var e =
        assertThrows(
            org.apache.kafka.connect.errors.ConnectException.class, () -> w.open(List.of(TP)));
    assertTrue(e.getMessage().contains("someFutureFeature"), e.getMessage());
    assertTrue(e.getMessage().contains(table), e.getMessage());
  }

  @Test
  void aTableWithDeletionVectorsTakesAppends() throws Exception {
    createTableWithFeatures("\"deletionVectors\"", "\"deletionVectors\"");
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    List<SinkRecord> batch = new ArrayList<>();
    for (long o = 0; o < 3; o++) {
      batch.add(record(o));
    }
    putAndCommit(w, batch);
    String appId = "sink-" + TP.topic() + "-" + TP.partition();
    assertEquals(2L, DeltaTables.txnVersions(conf, table, List.of(appId)).get(appId));
    assertEquals(Set.of("deletionVectors"), DeltaTables.features(conf, table));
    assertEquals(3, DeltaTables.files(conf, table).stream().mapToLong(f -> rows(f.stats())).sum());
  }

  @Test
  void aCommitSaysWhichPrefixAndTopicsItsTxnAppIdsAreMadeOf() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    putAndCommit(w, List.of(record(0)));
    String first =
        java.nio.file.Files.readAllLines(dir.resolve("t/_delta_log/00000000000000000000.json"))
            .get(0);
    Map<?, ?> info =
        (Map<?, ?>) ((Map<?, ?>) io.kcdelta.schema.JsonParser.parse(first)).get("commitInfo");
    assertEquals(
        Map.of("txnAppIdPrefix", "sink", "topics", List.of(TP.topic())),
        info.get("kafkaConnectDelta"));
  }

  private static long rows(String stats) {
    return Long.parseLong(stats.replaceAll(".*\"numRecords\":(\\d+).*", "$1"));
  }

  @Test
  void requiredFieldsOfStructsInsideArraysAndMapsAreCommitted() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    w.open(List.of(TP));
    Schema item =
        SchemaBuilder.struct()
            .name("Item")
            .field("sku", Schema.STRING_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .build();
    Schema order =
        SchemaBuilder.struct()
            .name("Order")
            .field("id", Schema.INT64_SCHEMA)
            .field("items", SchemaBuilder.array(item).build())
            .field("byWarehouse", SchemaBuilder.map(Schema.STRING_SCHEMA, item).build())
            .build();
    Struct it = new Struct(item).put("sku", "a").put("qty", 2);
    putAndCommit(
        w,
        List.of(
            new SinkRecord(
                TP.topic(),
                0,
                null,
                null,
                order,
                new Struct(order)
                    .put("id", 0L)
                    .put("items", List.of(it))
                    .put("byWarehouse", Map.of("w1", it)),
                0)));
    assertEquals(0, txnVersion(), "the commit went through");
    assertEquals(Map.of(0L, 1), idCounts());
  }

  /** As a RegexRouter leaves it: delivered as renamed-5@offset, consumed from events-0@offset. */
  private static SinkRecord renamedByAnSmt(long offset) {
    Struct value = new Struct(SCHEMA).put("id", offset).put("name", "row-" + offset);
    return new SinkRecord(
        "renamed",
        5,
        null,
        null,
        SCHEMA,
        value,
        offset,
        null,
        org.apache.kafka.common.record.TimestampType.NO_TIMESTAMP_TYPE,
        List.of(),
        TP.topic(),
        TP.partition(),
        offset);
  }

  @Test
  void aTopicRenamingSmtKeepsTheConsumedPartitionsOffsetsSinceConnect36() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, RecordOrigin.ORIGINAL);
    w.open(List.of(TP));
    putAndCommit(w, List.of(renamedByAnSmt(0), renamedByAnSmt(1)));
    assertEquals(
        1, txnVersion(), "the offsets are recorded under the consumed topic and partition");
    assertEquals(Map.of(0L, 1, 1L, 1), idCounts());
  }

  @Test
  void aTopicRenamingSmtBeforeConnect36FailsTheTaskSayingWhy() {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, RecordOrigin.AS_DELIVERED);
    w.open(List.of(TP));
    var e =
        assertThrows(
            org.apache.kafka.connect.errors.ConnectException.class,
            () -> w.put(List.of(renamedByAnSmt(0))));
    assertTrue(
        e.getMessage().contains("renamed-5@0") && e.getMessage().contains("Connect 3.6"),
        e.getMessage());
  }

  @Test
  void filesOfACommitThatLandedButReportedFailureAreNeverDeleted() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        writer(ctx, "hadoop.delta.logStore.file.impl", LandThenFailLogStore.class.getName());
    w.open(List.of(TP));
    putAndCommit(w, records(0, 10));

    LandThenFailLogStore.ARMED.set(true);
    w.put(records(10, 20));
    clock.addAndGet(FLUSH_MS);
    assertThrows(RetriableException.class, () -> w.put(List.of()), "the commit reported a failure");
    assertEquals(19, txnVersion(), "yet it landed");

    // The retry carries more rows, so it no longer matches the table: refused, and the batch
    // dropped.
    // The files of the landed attempt are in the table and must survive that.
    w.put(records(20, 30));
    assertEquals(Map.of(TP, 20L), ctx.seeks, "re-read after what the table holds");
    Map<Long, Integer> counts = idCounts();
    assertEquals(20, counts.size());
    counts.forEach((id, n) -> assertEquals(1, n, "copies of " + id));

    putAndCommit(w, records(20, 30));
    assertEquals(30, idCounts().size());
    assertEquals(29, txnVersion());
  }
}
