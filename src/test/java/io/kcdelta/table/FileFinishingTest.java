package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.testutil.DeltaTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Data files finished on a worker's pool while the task thread waits only for the commit. */
class FileFinishingTest {
  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .build();
  private static final TopicPartition TP = new TopicPartition("events", 0);

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final ExecutorService pool = Executors.newFixedThreadPool(4);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void theFilesOfABatchFinishSideBySide() throws Exception {
    // Each finish waits until three are running at once: files finished one after the other
    // would break the barrier (after 10 s) instead.
    CyclicBarrier together = new CyclicBarrier(3);
    AtomicBoolean apart = new AtomicBoolean();
    FileFinisher finisher =
        FileFinisher.on(
            job ->
                pool.execute(
                    () -> {
                      try {
                        together.await(10, TimeUnit.SECONDS);
                      } catch (Exception e) {
                        apart.set(true);
                      }
                      job.run();
                    }));
    String table = dir.resolve("t").toUri().toString();
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        Writers.writer(
            table,
            ctx,
            clock::get,
            SinkMetrics.none(),
            new CommitGroups(finisher),
            "delta.table.partition.columns",
            "region");
    w.open(List.of(TP));
    List<SinkRecord> records = new ArrayList<>();
    for (long o = 0; o < 30; o++) {
      Struct v = new Struct(SCHEMA).put("id", o).put("region", "r" + (o % 3));
      records.add(new SinkRecord(TP.topic(), 0, null, null, SCHEMA, v, o));
    }
    w.put(records);
    clock.addAndGet(1_000);
    w.put(List.of());
    assertFalse(apart.get(), "the three files of the batch were finished one after the other");
    Configuration conf = new Configuration();
    assertEquals(
        Map.of("sink-events-0", 29L),
        DeltaTables.txnVersions(conf, table, List.of("sink-events-0")));
    List<Long> ids = new ArrayList<>();
    for (Map<String, Object> row : DeltaTables.rows(conf, table)) {
      ids.add((Long) row.get("id"));
    }
    ids.sort(null);
    assertEquals(LongStream.range(0, 30).boxed().toList(), ids);
    assertEquals(3, DeltaTables.files(conf, table).size());
    w.stop();
  }
}
