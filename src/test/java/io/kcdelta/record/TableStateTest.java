package io.kcdelta.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

class TableStateTest {
  @Test
  void aConverterThatBuildsASchemaPerRecordDoesNotGrowTheLayoutCacheWithoutBound() {
    DeltaSinkConfig config =
        new DeltaSinkConfig(Map.of("name", "sink", "delta.table.path", "file:///tmp/unused"));
    TableState table = new TableState(config.tablePath("t"), config);
    table.refresh(null, java.util.Set.of(), true);
    for (int i = 0; i < 10 * TableState.MAX_LAYOUTS; i++) {
      Schema fresh = SchemaBuilder.struct().name("Row").field("id", Schema.INT64_SCHEMA).build();
      assertEquals(fresh, table.layoutFor(fresh).valueSchema());
      assertTrue(
          table.cachedLayouts() <= TableState.MAX_LAYOUTS,
          "cached layouts: " + table.cachedLayouts());
    }
  }
}
