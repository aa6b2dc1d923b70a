package io.kcdelta.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class TableRoutesTest {
  private static final Schema ORDER =
      SchemaBuilder.struct()
          .field("tenant", Schema.OPTIONAL_STRING_SCHEMA)
          .field("n", Schema.INT32_SCHEMA)
          .build();

  private final TableRoutes routes =
      new TableRoutes(
          new DeltaSinkConfig(
              Map.of(
                  "name", "sink",
                  "delta.table.path", "file:///w/${topic}/${field:tenant}",
                  "delta.table.path.audit", "file:///w/audit")),
          RecordOrigin.ORIGINAL);

  @Test
  void theTableIsNamedByTheFieldOfAStructAMapOrAJsonObject() {
    Struct struct = new Struct(ORDER).put("tenant", "acme-1").put("n", 1);
    assertEquals("file:///w/orders/acme-1", routes.pathOf(record("orders", ORDER, struct)));
    assertEquals(
        "file:///w/orders/globex",
        routes.pathOf(record("orders", null, Map.of("tenant", "globex"))));
    assertEquals(
        "file:///w/orders/in.itech",
        routes.pathOf(record("orders", null, "{\"tenant\": \"in.itech\", \"n\": 2}")));
    assertEquals("file:///w/audit", routes.pathOf(record("audit", ORDER, struct)));
    assertTrue(routes.byField("orders"));
    assertEquals(false, routes.byField("audit"));
  }

  @Test
  void aValueThatIsMissingNotAStringOrNotPathSafeNamesNoTable() {
    for (Object value :
        new Object[] {
          new Struct(ORDER).put("n", 1),
          Map.of("tenant", 7),
          Map.of("tenant", "../etc"),
          Map.of("tenant", "a/b"),
          Map.of("tenant", "_hidden"),
          Map.of("tenant", "x".repeat(129)),
          Map.of("other", "x"),
          "not json"
        }) {
      Schema schema = value instanceof Struct ? ORDER : null;
      DataException e =
          assertThrows(
              DataException.class,
              () -> routes.pathOf(record("orders", schema, value)),
              "" + value);
      assertTrue(e.getMessage().contains("field 'tenant'"), e.getMessage());
    }
  }

  private static SinkRecord record(String topic, Schema schema, Object value) {
    return new SinkRecord(topic, 0, null, null, schema, value, 5);
  }
}
