package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.metrics.RecordingRegistry;
import io.kcdelta.metrics.SinkMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the task's metrics say after what it did, read back from its metric registry. */
class TaskMetricsTest {
  private static final Schema SCHEMA =
      SchemaBuilder.struct().name("Row").field("id", Schema.INT64_SCHEMA).build();
  private static final TopicPartition TP = new TopicPartition("events", 0);

  /** Writers's. */
  private static final long FLUSH_MS = 1_000;

  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final List<RecordingRegistry> registries = new ArrayList<>();
  private String table;

  @BeforeEach
  void setUp() {
    table = dir.resolve("t").toUri().toString();
  }

  @AfterEach
  void closeRegistries() {
    registries.forEach(RecordingRegistry::close);
  }

  @Test
  void freshnessLagAndBuffersFollowThePutsAndTheCommit() {
    RecordingRegistry m = registry();
    DeltaSinkWriter w = writer(m, new FakeSinkContext());
    w.open(List.of(TP));
    assertEquals(-1, m.value("committed-offset", "topic", "events", "partition", "0"));

    w.put(records(0, 10, clock.get() - 5_000)); // produced 5 s before they arrive
    clock.addAndGet(400);
    w.put(List.of());
    assertEquals(10, m.value("buffered-rows", "table", table));
    assertEquals(1, m.value("open-files", "table", table));
    assertEquals(400, m.value("oldest-pending-record-age-ms", "table", table), 50);
    assertEquals(9, m.value("last-received-offset", "topic", "events", "partition", "0"));
    assertEquals(10, m.value("uncommitted-records", "topic", "events", "partition", "0"));
    assertTrue(Double.isNaN(m.value("committed-record-age-ms", "table", table)));
    assertEquals(-1, m.value("last-commit-version", "table", table));

    clock.addAndGet(FLUSH_MS);
    w.put(List.of());
    assertEquals(10, m.value("committed-rows-total", "table", table));
    assertEquals(10, m.value("committed-rows-total"), "the task's total too");
    assertEquals(1, m.value("commits-total", "table", table));
    assertEquals(1, m.value("commit-attempts-total", "table", table));
    assertEquals(1, m.value("commit-files-avg", "table", table));
    assertEquals(0, m.value("last-commit-version", "table", table), "version 0 created the table");
    assertEquals(0, m.value("buffered-rows", "table", table));
    assertEquals(0, m.value("open-files", "table", table));
    assertEquals(0, m.value("oldest-pending-record-age-ms", "table", table));
    assertEquals(9, m.value("committed-offset", "topic", "events", "partition", "0"));
    assertEquals(0, m.value("uncommitted-records", "topic", "events", "partition", "0"));
    assertEquals(5_000 + 400 + FLUSH_MS, m.value("committed-record-age-ms", "table", table), 1);
    assertEquals(0, m.value("last-commit-age-ms", "table", table), 50);
    clock.addAndGet(3_000);
    assertEquals(3_000, m.value("last-commit-age-ms", "table", table), 50);
    assertEquals(0, m.value("commit-conflicts-total", "table", table));

    w.close(List.of(TP));
    assertNull(m.metric("committed-offset", "topic", "events", "partition", "0"), "closed: gone");
    assertEquals(1, m.value("commits-total", "table", table), "counts stay for the task's life");
    assertTrue(
        Double.isNaN(m.value("committed-record-age-ms", "table", table)),
        "no longer the table's staleness: the task writes none of its partitions");
  }

  @Test
  void aPartitionOpenedAgainWithoutACloseKeepsOneSetOfGauges() {
    RecordingRegistry m = registry();
    DeltaSinkWriter w = writer(m, new FakeSinkContext());
    w.open(List.of(TP));
    w.put(records(0, 3, clock.get()));
    clock.addAndGet(FLUSH_MS);
    w.put(List.of());
    w.open(List.of(TP)); // Connect closes first; a second open must not fail the task either
    assertEquals(2, m.value("committed-offset", "topic", "events", "partition", "0"));
  }

  @Test
  void aZombieCountsItsFencedBatchAndTheCommitThatBeatItCountsNoConflict() {
    RecordingRegistry zombieMetrics = registry();
    DeltaSinkWriter zombie =
        writer(zombieMetrics, new FakeSinkContext(), DeltaSinkConfig.COMMIT_GROUP, "false");
    zombie.open(List.of(TP));
    zombie.put(records(0, 10, clock.get()));

    RecordingRegistry ownerMetrics = registry();
    DeltaSinkWriter owner =
        writer(ownerMetrics, new FakeSinkContext(), DeltaSinkConfig.COMMIT_GROUP, "false");
    owner.open(List.of(TP));
    owner.put(records(0, 12, clock.get()));
    clock.addAndGet(FLUSH_MS);
    owner.put(List.of());
    zombie.put(List.of());

    assertEquals(1, zombieMetrics.value("commits-fenced-total", "table", table));
    assertEquals(1, zombieMetrics.value("commits-fenced-total"), "the task's total too");
    assertEquals(0, zombieMetrics.value("commits-total", "table", table));
    assertEquals(
        11,
        zombieMetrics.value("committed-offset", "topic", "events", "partition", "0"),
        "the zombie learns what the table holds");
    assertEquals(1, ownerMetrics.value("commits-total", "table", table));
    assertEquals(0, ownerMetrics.value("commits-fenced-total", "table", table));
  }

  @Test
  void errantRecordsCountByCause() {
    RecordingRegistry m = registry();
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(m, ctx, "behavior.on.null.values", "fail");
    w.open(List.of(TP));
    w.put(
        List.of(
            new SinkRecord("events", 0, null, null, SCHEMA, new Struct(SCHEMA).put("id", 0L), 0),
            new SinkRecord("events", 0, null, null, null, null, 1),
            new SinkRecord("events", 0, null, null, Schema.INT32_SCHEMA, 7, 2),
            new SinkRecord("events", 0, null, null, null, "not json", 3),
            new SinkRecord(
                "events",
                0,
                null,
                null,
                SchemaBuilder.struct().name("Row").field("id", Schema.STRING_SCHEMA).build(),
                new Struct(
                        SchemaBuilder.struct()
                            .name("Row")
                            .field("id", Schema.STRING_SCHEMA)
                            .build())
                    .put("id", "x"),
                4)));
    assertEquals(4, ctx.errant.size());
    assertEquals(4, m.value("records-errant-total"));
    assertEquals(1, m.value("records-errant-total", "cause", "null-value"));
    assertEquals(1, m.value("records-errant-total", "cause", "unsupported-value"));
    assertEquals(1, m.value("records-errant-total", "cause", "value"), "text that is no JSON");
    assertEquals(1, m.value("records-errant-total", "cause", "schema"), "id changed its type");
  }

  @Test
  void retriesCountPerServiceAndTheRunOfFailuresIsTimedUntilTheNextSuccess() {
    RecordingRegistry m = registry();
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        writer(
            m,
            ctx,
            "hadoop.fs.file.impl",
            FailingLocalFileSystem.class.getName(),
            "hadoop.fs.file.impl.disable.cache",
            "true");
    w.open(List.of(TP));
    try {
      FailingLocalFileSystem.failParquet = true;
      w.put(records(0, 5, clock.get())); // the upload fails: dropped, sought back, retried
      clock.addAndGet(700);
      w.put(records(0, 5, clock.get()));
    } finally {
      FailingLocalFileSystem.failParquet = false;
    }
    assertEquals(2, m.value("retries-total", "service", "storage"));
    assertEquals(700, m.value("retrying-for-ms", "table", table), 50);
    assertEquals(0, m.value("commit-failures-total", "table", table), "no batch reached a commit");

    w.put(records(0, 5, clock.get()));
    clock.addAndGet(FLUSH_MS);
    w.put(List.of());
    assertEquals(5, m.value("committed-rows-total", "table", table));
    assertEquals(0, m.value("retrying-for-ms", "table", table));
    assertEquals(700 + FLUSH_MS, m.value("retry-time-ms-total", "service", "storage"), 50);
  }

  private RecordingRegistry registry() {
    RecordingRegistry r = new RecordingRegistry(clock::get);
    registries.add(r);
    return r;
  }

  private DeltaSinkWriter writer(RecordingRegistry registry, FakeSinkContext ctx, String... kv) {
    return Writers.writer(table, ctx, clock::get, SinkMetrics.of(registry, clock::get), kv);
  }

  @Test
  void aMembersPartitionGaugesFollowTheCommitAnotherMemberOfItsGroupMade() {
    CommitGroups worker = new CommitGroups();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    RecordingRegistry ma = registry();
    RecordingRegistry mb = registry();
    DeltaSinkWriter a =
        Writers.writer(
            table, new FakeSinkContext(), clock::get, SinkMetrics.of(ma, clock::get), worker);
    DeltaSinkWriter b =
        Writers.writer(
            table, new FakeSinkContext(), clock::get, SinkMetrics.of(mb, clock::get), worker);
    a.open(List.of(TP));
    b.open(List.of(other));
    a.put(records(0, 5, clock.get()));
    List<SinkRecord> ofB = new ArrayList<>();
    for (long o = 0; o < 7; o++) {
      ofB.add(
          new SinkRecord(
              other.topic(),
              other.partition(),
              null,
              null,
              SCHEMA,
              new Struct(SCHEMA).put("id", 100 + o),
              o));
    }
    b.put(ofB);
    clock.addAndGet(FLUSH_MS);
    b.put(List.of()); // b's batch is due: a round opens and waits for a's rows
    assertEquals(-1, mb.value("committed-offset", "topic", "events", "partition", "1"));
    a.put(List.of()); // a hands in the last awaited batch: one commit of both

    // b has not been called since: its gauges say what the table holds.
    assertEquals(6, mb.value("committed-offset", "topic", "events", "partition", "1"));
    assertEquals(0, mb.value("uncommitted-records", "topic", "events", "partition", "1"));
    assertEquals(4, ma.value("committed-offset", "topic", "events", "partition", "0"));
    b.put(List.of());
    assertEquals(6, mb.value("committed-offset", "topic", "events", "partition", "1"));
  }

  private static List<SinkRecord> records(long from, long to, long timestamp) {
    List<SinkRecord> out = new ArrayList<>();
    for (long o = from; o < to; o++) {
      out.add(
          new SinkRecord(
              TP.topic(),
              TP.partition(),
              null,
              null,
              SCHEMA,
              new Struct(SCHEMA).put("id", o),
              o,
              timestamp,
              TimestampType.CREATE_TIME));
    }
    return out;
  }
}
