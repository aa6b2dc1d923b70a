package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.testutil.FastLocalFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open-file memory budget is the task's, across all its tables, and finishing early loses no
 * row.
 */
class OpenFileBudgetTest {
  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .name("Row")
          .field("id", Schema.INT64_SCHEMA)
          .field("region", Schema.STRING_SCHEMA)
          .field("payload", Schema.STRING_SCHEMA)
          .build();
  private static final int ROWS_PER_TOPIC = 10_000;

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);

  /**
   * Two topics (two tables through ${topic}), 10 partition values each; returns the files per
   * table.
   */
  private Map<String, List<AddFile>> writeTwoTables(long budgetBytes) {
    return writeTwoTables(budgetBytes, 10, ROWS_PER_TOPIC, 200);
  }

  /** Rows go round-robin over the partition values. */
  private Map<String, List<AddFile>> writeTwoTables(
      long budgetBytes, int values, int rowsPerTopic, int payloadChars) {
    DeltaSinkConfig config =
        new DeltaSinkConfig(
            Map.of(
                "name",
                "sink",
                "delta.table.path",
                dir.resolve(budgetBytes + "-" + values).toUri() + "/${topic}",
                "delta.table.partition.columns",
                "region",
                "flush.interval.ms",
                "1000",
                "hadoop.fs.file.impl",
                FastLocalFileSystem.class.getName(),
                "hadoop.fs.file.impl.disable.cache",
                "true"));
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w =
        new DeltaSinkWriter(
            config,
            ctx,
            HadoopConfigurationFactory.create(config),
            null,
            SinkMetrics.none(),
            RecordOrigin.ORIGINAL,
            clock::get,
            new CommitGroups(),
            new OpenFileBudget(budgetBytes));
    List<TopicPartition> tps = List.of(new TopicPartition("a", 0), new TopicPartition("b", 0));
    w.open(tps);
    List<SinkRecord> batch = new ArrayList<>();
    for (int i = 0; i < rowsPerTopic; i++) {
      for (TopicPartition tp : tps) {
        Struct v =
            new Struct(SCHEMA)
                .put("id", (long) i)
                .put("region", "r" + (i % values))
                .put("payload", "x".repeat(payloadChars) + i);
        batch.add(new SinkRecord(tp.topic(), tp.partition(), null, null, SCHEMA, v, i));
      }
    }
    w.put(batch);
    clock.addAndGet(1_000);
    w.put(List.of());
    Configuration conf = new Configuration();
    return Map.of(
        "a", DeltaLog.forTable(conf, config.tablePath("a")).update().getAllFiles(),
        "b", DeltaLog.forTable(conf, config.tablePath("b")).update().getAllFiles());
  }

  private static long rows(List<AddFile> files) {
    return files.stream()
        .mapToLong(f -> Long.parseLong(f.getStats().replaceAll(".*\"numRecords\":(\\d+).*", "$1")))
        .sum();
  }

  @Test
  void openFilesOfAllTablesBeyondTheTaskBudgetAreFinishedEarlyWithoutLosingRows() {
    // The writers of the 20 open files take about 2.7 MB before any row.
    Map<String, List<AddFile>> files = writeTwoTables(3L << 20);
    for (String topic : List.of("a", "b")) {
      assertTrue(
          files.get(topic).size() > 10,
          topic
              + ": the largest open files were finished early, "
              + files.get(topic).size()
              + " files");
      assertEquals(ROWS_PER_TOPIC, rows(files.get(topic)), topic + ": rows");
    }
  }

  /**
   * A file holds about 150 KB before its first row (Parquet's writers), so rows spread over a
   * thousand partition values take 150 MB however small they are: the budget counts that, not only
   * the rows, and a task writing many partition values stays within it.
   */
  @Test
  void filesOpenedForManyPartitionValuesCountAgainstTheBudgetBeforeTheirRows() {
    int values = 1_000;
    Map<String, List<AddFile>> bounded = writeTwoTables(16L << 20, values, 2 * values, 10);
    Map<String, List<AddFile>> unbounded = writeTwoTables(Long.MAX_VALUE, values, 2 * values, 10);
    for (String topic : List.of("a", "b")) {
      assertEquals(values, unbounded.get(topic).size(), topic + ": one file per value");
      // 16 MB holds about a hundred open files of both tables: most values' first row is in a file
      // finished before their second row came.
      assertTrue(
          bounded.get(topic).size() > values * 3 / 2,
          topic + ": files finished early, " + bounded.get(topic).size() + " files");
      assertEquals(2 * values, rows(bounded.get(topic)), topic + ": rows");
    }
  }

  @Test
  void withinTheBudgetEachPartitionValueHasOneFile() {
    Map<String, List<AddFile>> files = writeTwoTables(Long.MAX_VALUE);
    for (String topic : List.of("a", "b")) {
      assertEquals(10, files.get(topic).size(), topic + ": files");
      assertEquals(ROWS_PER_TOPIC, rows(files.get(topic)), topic + ": rows");
    }
  }

  @Test
  void aBudgetThatOneTableFitsButTwoDoNotFinishesFilesEarly() {
    // Each table alone holds about 3.4 MB here (2 MB of rows, 1.4 MB of writers): a budget per
    // table of 5 MB would never finish early.
    Map<String, List<AddFile>> files = writeTwoTables(5L << 20);
    assertTrue(
        files.get("a").size() + files.get("b").size() > 20,
        "files: " + files.get("a").size() + " + " + files.get("b").size());
  }
}
