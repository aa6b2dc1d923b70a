package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.kcdelta.it.DeltaTableContents;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.StandaloneTypes;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schemaless records through the task's whole path into a table and back. */
class SchemalessRowsTest {
  private static final TopicPartition TP = new TopicPartition("plain", 0);

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final Configuration conf = new Configuration();
  private String table;
  private long nextOffset;

  @BeforeEach
  void setUp() {
    table = dir.resolve("plain").toUri().toString();
  }

  private DeltaSinkWriter writer(FakeSinkContext ctx, String... kv) {
    return Writers.opened(table, ctx, clock::get, TP, kv);
  }

  /** A JSON object as JsonConverter gives it with schemas.enable=false ("k", v, "k2", v2, ...). */
  private SinkRecord json(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return new SinkRecord(TP.topic(), TP.partition(), null, null, null, m, nextOffset++);
  }

  private void commit(DeltaSinkWriter w, SinkRecord... records) {
    w.put(List.of(records));
    clock.addAndGet(1_000);
    w.put(List.of());
  }

  private Snapshot snapshot() {
    return DeltaLog.forTable(conf, table).update();
  }

  private List<Group> rows() throws Exception {
    return DeltaTableContents.rows(conf, table, snapshot()).stream()
        .map(DeltaTableContents.Row::values)
        .toList();
  }

  @Test
  void aNewTablesSchemaComesFromTheWholeFirstBatchAndNullOnlyKeysWait() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    commit(w, json("a", 1L, "n", null), json("a", 1.5, "s", "x"), json("a", 2L));

    StructType schema = StandaloneTypes.ours(snapshot().getMetadata().getSchema());
    assertEquals(List.of("a", "s"), schema.fieldNames(), "n was null throughout");
    assertEquals(PrimitiveType.DOUBLE, schema.field("a").type(), "1 and 1.5 make a double");
    assertEquals(
        List.of(1.0, 1.5, 2.0), rows().stream().map(g -> g.getDouble("a", 0)).sorted().toList());

    commit(w, json("a", 3L, "n", 7L));
    schema = StandaloneTypes.ours(snapshot().getMetadata().getSchema());
    assertEquals(PrimitiveType.LONG, schema.field("n").type(), "added once it had a value");
    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
  }

  private SinkRecord text(String json) {
    return new SinkRecord(
        TP.topic(), TP.partition(), null, null, Schema.OPTIONAL_STRING_SCHEMA, json, nextOffset++);
  }

  @Test
  void jsonTextAsStringConverterGivesItIsReadAsObjectsAndOtherTextIsErrant() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    commit(
        w,
        text("{\"id\": 1, \"price\": 1.10}"),
        text("not json"),
        text("[1, 2]"),
        text("{\"id\": 2, \"price\": 2}"));

    StructType schema = StandaloneTypes.ours(snapshot().getMetadata().getSchema());
    assertEquals(PrimitiveType.LONG, schema.field("id").type());
    assertEquals(PrimitiveType.DOUBLE, schema.field("price").type());
    assertEquals(
        List.of(1.1, 2.0), rows().stream().map(g -> g.getDouble("price", 0)).sorted().toList());
    assertEquals(2, ctx.errant.size());
    assertTrue(ctx.errors.get(0).getMessage().contains("not JSON"), ctx.errors.get(0).getMessage());
    assertTrue(
        ctx.errors.get(1).getMessage().contains("not a JSON object"),
        ctx.errors.get(1).getMessage());
  }

  @Test
  void unknownKeysFailTheRecordWhenSetToFail() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "delta.schemaless.unknown.fields", "fail");
    commit(w, json("id", 1L));
    commit(w, json("id", 2L, "extra", "x"), json("id", 3L));

    assertEquals(1, ctx.errant.size());
    assertEquals(2L, ((Map<?, ?>) ctx.errant.get(0).value()).get("id"));
    assertEquals(
        List.of("id"), StandaloneTypes.ours(snapshot().getMetadata().getSchema()).fieldNames());
    assertEquals(2, rows().size());
  }

  @Test
  void unknownKeysAreDroppedWhenSetToIgnore() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "delta.schemaless.unknown.fields", "ignore");
    commit(w, json("id", 1L));
    commit(w, json("id", 2L, "extra", "x"));

    assertTrue(ctx.errant.isEmpty());
    assertEquals(
        List.of("id"), StandaloneTypes.ours(snapshot().getMetadata().getSchema()).fieldNames());
    assertEquals(2, rows().size());
  }

  @Test
  void aValueThatDoesNotFitItsColumnIsErrantAndTheOthersAreWritten() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    commit(w, json("id", 1L, "name", "a"));
    commit(w, json("id", "two", "name", "b"), json("id", 3L, "name", "c"));

    assertEquals(1, ctx.errant.size());
    assertEquals(2, rows().size());
    assertFalse(rows().stream().anyMatch(g -> g.getString("name", 0).equals("b")));
  }

  @Test
  void metadataColumnsFollowSchemalessValuesAlsoOnceTheTableHasThem() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx, "delta.record.metadata.columns", "offset");
    commit(w, json("id", 1L));
    commit(w, json("id", 2L));
    commit(w, json("id", 3L, "_kafka", "mine"));

    assertEquals(
        List.of("id", "_kafka"),
        StandaloneTypes.ours(snapshot().getMetadata().getSchema()).fieldNames());
    List<Long> offsets =
        rows().stream().map(g -> g.getGroup("_kafka", 0).getLong("offset", 0)).sorted().toList();
    assertEquals(List.of(0L, 1L), offsets);
    assertEquals(1, ctx.errant.size(), "a key with the metadata column's name");
  }
}
