package io.kcdelta.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.metrics.SinkMetrics.ErrantCause;
import io.kcdelta.record.RecordCheck.Deleted;
import io.kcdelta.record.RecordCheck.Errant;
import io.kcdelta.record.RecordCheck.Row;
import io.kcdelta.record.RecordCheck.Verdict;
import io.kcdelta.schema.RowKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** What each record means in upsert mode: a key's new row, a delete of a key, or errant. */
class UpsertChangesTest {
  private static final Schema KEY =
      SchemaBuilder.struct().name("Key").field("id", Schema.INT64_SCHEMA).build();
  private static final Schema ROW =
      SchemaBuilder.struct()
          .name("Value")
          .optional()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("score", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .build();
  private static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("Envelope")
          .field("before", ROW)
          .field("after", ROW)
          .field("op", Schema.STRING_SCHEMA)
          .build();
  private static final Schema FLATTENED =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__deleted", Schema.STRING_SCHEMA)
          .build();

  private static Verdict check(Map<String, String> extra, SinkRecord record) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "sink");
    props.put("delta.table.path", "file:///tmp/unused");
    props.put("delta.write.mode", "upsert");
    props.putAll(extra);
    DeltaSinkConfig config = new DeltaSinkConfig(props);
    TableState table = new TableState(config.tablePath("t"), config);
    table.refresh(null, java.util.Set.of(), true);
    return new RecordCheck(config, RecordOrigin.ORIGINAL).check(record, table);
  }

  private static Verdict check(SinkRecord record) {
    return check(Map.of(), record);
  }

  private static SinkRecord record(Schema keySchema, Object key, Schema valueSchema, Object value) {
    return new SinkRecord("t", 0, keySchema, key, valueSchema, value, 7);
  }

  private static Struct key(long id) {
    return new Struct(KEY).put("id", id);
  }

  private static Struct row(long id, String name) {
    return new Struct(ROW).put("id", id).put("name", name);
  }

  private static Struct envelope(String op, Struct before, Struct after) {
    return new Struct(ENVELOPE).put("op", op).put("before", before).put("after", after);
  }

  @Test
  void debeziumOpsBecomeTheAfterStateOrADeleteOfTheKey() {
    for (String op : List.of("c", "r", "u")) {
      Row row =
          assertInstanceOf(
              Row.class,
              check(record(KEY, key(1), ENVELOPE, envelope(op, row(1, "a"), row(1, "b")))));
      assertEquals("b", row.value().getString("name"), op);
      assertEquals(RowKey.of(1L), row.key(), op);
      assertEquals(List.of("id"), row.key().columns(), "the record key's fields");
    }
    Deleted d =
        assertInstanceOf(
            Deleted.class, check(record(KEY, key(2), ENVELOPE, envelope("d", row(2, "a"), null))));
    assertEquals(RowKey.of(2L), d.key());
    // Without a record key, the before state holds the key.
    assertEquals(
        RowKey.of(3L),
        assertInstanceOf(
                Deleted.class,
                check(
                    Map.of("delta.upsert.key.columns", "id"),
                    record(null, null, ENVELOPE, envelope("d", row(3, "a"), null))))
            .key());
    Errant truncate =
        assertInstanceOf(
            Errant.class, check(record(KEY, key(1), ENVELOPE, envelope("t", null, null))));
    assertEquals(ErrantCause.KEY, truncate.cause());
    assertTrue(truncate.problem().getMessage().contains("op 't'"), truncate.problem().getMessage());
  }

  @Test
  void aTombstoneDeletesItsKeyWhateverNullValuesSays() {
    Map<String, String> fail = Map.of("behavior.on.null.values", "fail");
    assertEquals(
        RowKey.of(5L),
        assertInstanceOf(Deleted.class, check(fail, record(KEY, key(5), null, null))).key());
    // A plain key, one key column.
    assertEquals(
        RowKey.of("k-9"),
        assertInstanceOf(
                Deleted.class,
                check(
                    Map.of("delta.upsert.key.columns", "code"),
                    record(Schema.STRING_SCHEMA, "k-9", null, null)))
            .key());
    Errant keyless = assertInstanceOf(Errant.class, check(record(null, null, null, null)));
    assertTrue(
        keyless.problem().getMessage().contains("delta.upsert.key.columns"),
        keyless.problem().getMessage());
  }

  @Test
  void aFlattenedDeleteDeletesAndOtherRowsAreNewStates() {
    Struct deleted = new Struct(FLATTENED).put("id", 4L).put("name", "x").put("__deleted", "true");
    Struct live = new Struct(FLATTENED).put("id", 4L).put("name", "y").put("__deleted", "false");
    assertEquals(
        RowKey.of(4L),
        assertInstanceOf(Deleted.class, check(record(KEY, key(4), FLATTENED, deleted))).key());
    assertEquals(
        "y",
        assertInstanceOf(Row.class, check(record(KEY, key(4), FLATTENED, live)))
            .value()
            .getString("name"));
  }

  @Test
  void aRowWithoutAUsableKeyIsErrantNamingWhy() {
    Errant missing =
        assertInstanceOf(
            Errant.class,
            check(
                Map.of("delta.upsert.key.columns", "code"), record(KEY, key(1), ROW, row(1, "a"))));
    assertTrue(missing.problem().getMessage().contains("no key column 'code'"));
    Errant nullKey =
        assertInstanceOf(
            Errant.class,
            check(
                Map.of("delta.upsert.key.columns", "name"),
                record(KEY, key(1), ROW, row(1, null))));
    assertTrue(nullKey.problem().getMessage().contains("null"), nullKey.problem().getMessage());
    Errant doubleKey =
        assertInstanceOf(
            Errant.class,
            check(
                Map.of("delta.upsert.key.columns", "score"),
                record(KEY, key(1), ROW, row(1, "a").put("score", 1.5))));
    assertTrue(
        doubleKey.problem().getMessage().contains("Double"), doubleKey.problem().getMessage());
    assertEquals(ErrantCause.KEY, doubleKey.cause());
  }
}
