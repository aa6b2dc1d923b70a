package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableWriterTest {
  private static final Schema SCHEMA = SchemaBuilder.struct().name("Row").field("id", Schema.INT64_SCHEMA)
      .field("region", Schema.STRING_SCHEMA).field("payload", Schema.STRING_SCHEMA).build();
  private static final TopicPartition TP = new TopicPartition("events", 0);

  @TempDir
  Path dir;

  private TableWriter writer(long bufferBudgetBytes) {
    DeltaSinkConfig config = new DeltaSinkConfig(Map.of("name", "sink", "delta.table.path",
        dir.resolve("t").toUri().toString(), "delta.table.partition.columns", "region"));
    TableWriter table = new TableWriter(config.tablePath("events"), new Configuration(), config, bufferBudgetBytes);
    table.refresh(null);
    return table;
  }

  /** Writes rows spread over 10 partition values; returns the drained batch. */
  private static Batch writeRows(TableWriter table, int rows) throws Exception {
    TableWriter.RecordLayout layout = table.layoutFor(SCHEMA);
    for (int i = 0; i < rows; i++) {
      Struct v = new Struct(SCHEMA).put("id", (long) i).put("region", "r" + (i % 10)).put("payload", "x".repeat(200) + i);
      table.write(v, layout, TP, i, 0);
    }
    return table.drain();
  }

  @Test
  void openFilesBeyondTheBufferBudgetAreFinishedEarlyWithoutLosingRows() throws Exception {
    Batch bounded = writeRows(writer(64 * 1024), 20_000);
    assertTrue(bounded.files().size() > 10, "the largest open files were finished early: " + bounded.files().size());
    assertEquals(20_000, bounded.rows());
    assertEquals(Map.of(TP, 19_999L), bounded.lastOffsets());
  }

  @Test
  void withinTheBudgetEachPartitionValueHasOneFile() throws Exception {
    Batch batch = writeRows(writer(Long.MAX_VALUE), 20_000);
    assertEquals(10, batch.files().size());
    assertEquals(20_000, batch.rows());
  }
}
