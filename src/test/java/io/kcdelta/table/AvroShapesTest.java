package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.apicurio.registry.utils.converter.avro.AvroData;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.kcdelta.it.DeltaTableContents;
import io.kcdelta.schema.ArrayType;
import io.kcdelta.schema.DecimalType;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.MapType;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.AvroOrders;
import io.kcdelta.testutil.StandaloneTypes;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an Avro converter hands the sink: Connect schemas made by a real Avro → Connect mapping
 * (Apicurio's AvroData, the same rules as Confluent's) from Avro schemas and GenericRecords,
 * written through the task's whole path into a table and read back with parquet-hadoop.
 */
class AvroShapesTest {
  private static final TopicPartition TP = new TopicPartition("avro", 0);

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final AvroData avroData = new AvroData(100);
  private final Configuration conf = new Configuration();
  private final org.apache.avro.Schema v1 = AvroOrders.SCHEMA_V1;
  private final org.apache.avro.Schema v2 = AvroOrders.SCHEMA_V2;
  private String table;

  @BeforeEach
  void setUp() {
    table = dir.resolve("avro").toUri().toString();
  }

  private DeltaSinkWriter writer(FakeSinkContext ctx) {
    return Writers.opened(table, ctx, clock::get, TP);
  }

  private SinkRecord record(org.apache.avro.Schema schema, long offset) {
    SchemaAndValue connect = avroData.toConnectData(schema, AvroOrders.order(schema, offset));
    return new SinkRecord(
        TP.topic(), TP.partition(), null, null, connect.schema(), connect.value(), offset);
  }

  @Test
  void everyAvroShapeBecomesAColumnAndRoundTrips() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    List<SinkRecord> batch = new ArrayList<>();
    for (long o = 0; o < 30; o++) {
      batch.add(record(v1, o));
    }
    w.put(batch);
    clock.addAndGet(1_000);
    w.put(List.of());

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    Snapshot snapshot = DeltaLog.forTable(conf, table).update();
    StructType schema = StandaloneTypes.ours(snapshot.getMetadata().getSchema());
    assertType(PrimitiveType.LONG, false, schema, "id");
    assertType(PrimitiveType.STRING, true, schema, "note");
    // Avro's multi-branch union: a struct with one nullable field per branch.
    StructType choice = (StructType) schema.field("choice").type();
    assertEquals(List.of("int", "string"), choice.fieldNames());
    assertType(PrimitiveType.INTEGER, true, choice, "int");
    assertType(PrimitiveType.STRING, false, schema, "status");
    assertType(new DecimalType(10, 2), false, schema, "amount");
    assertType(PrimitiveType.INTEGER, false, schema, "qty");
    assertType(PrimitiveType.TIMESTAMP, false, schema, "placed");
    assertType(PrimitiveType.DATE, false, schema, "day");
    assertTrue(schema.field("ship_to").type() instanceof StructType);
    assertTrue(schema.field("bill_to").nullable(), "the named type, referenced in a union");
    assertEquals(schema.field("ship_to").type(), schema.field("bill_to").type());
    assertTrue(((ArrayType) schema.field("lines").type()).elementType() instanceof StructType);
    assertEquals(PrimitiveType.STRING, ((MapType) schema.field("attrs").type()).keyType());
    assertType(PrimitiveType.BINARY, false, schema, "digest");

    Map<Long, Group> rows = rows(snapshot);
    assertEquals(30, rows.size());
    for (long id = 0; id < 30; id++) {
      Group row = rows.get(id);
      String where = "row " + id;
      assertEquals(id % 2 == 0 ? 0 : 1, row.getFieldRepetitionCount("note"), where);
      Group c = row.getFieldRepetitionCount("choice") == 0 ? null : row.getGroup("choice", 0);
      if (id % 3 == 0) {
        assertEquals(null, c, where);
      } else if (id % 3 == 1) {
        assertEquals((int) id, c.getInteger("int", 0), where);
        assertEquals(0, c.getFieldRepetitionCount("string"), where);
      } else {
        assertEquals("s" + id, c.getString("string", 0), where);
        assertEquals(0, c.getFieldRepetitionCount("int"), where);
      }
      assertEquals(id % 2 == 0 ? "NEW" : "PAID", row.getString("status", 0), where);
      assertEquals(id % 7, row.getInteger("qty", 0), where);
      assertEquals((1_796_379_330_123L + id) * 1000, row.getLong("placed", 0), where);
      assertEquals(20_791 + id % 3, row.getInteger("day", 0), where);
      assertEquals("city-" + id, row.getGroup("ship_to", 0).getString("city", 0), where);
      assertEquals(id % 5 == 0 ? 1 : 0, row.getFieldRepetitionCount("bill_to"), where);
      assertEquals(id % 3, row.getGroup("lines", 0).getFieldRepetitionCount("list"), where);
      assertEquals(4, row.getBinary("digest", 0).length(), where);
    }
  }

  @Test
  void aSchemaThatGainsAFieldWithinOneBatchAddsTheColumnAndKeepsEveryRow() throws Exception {
    FakeSinkContext ctx = new FakeSinkContext();
    DeltaSinkWriter w = writer(ctx);
    List<SinkRecord> batch = new ArrayList<>();
    for (long o = 0; o < 40; o++) {
      // The producer upgraded at offset 20; then an old producer instance writes once more.
      batch.add(record(o < 20 || o == 30 ? v1 : v2, o));
    }
    w.put(batch);
    clock.addAndGet(1_000);
    w.put(List.of());

    assertTrue(ctx.errant.isEmpty(), "errant: " + ctx.errant);
    Snapshot snapshot = DeltaLog.forTable(conf, table).update();
    StructField channel = StandaloneTypes.ours(snapshot.getMetadata().getSchema()).field("channel");
    assertTrue(channel.nullable());
    assertEquals(PrimitiveType.STRING, channel.type());
    Map<Long, Group> rows = rows(snapshot);
    assertEquals(40, rows.size());
    for (long id = 0; id < 40; id++) {
      boolean upgraded = id >= 20 && id != 30;
      Group row = rows.get(id);
      // A file written before the column existed lacks it: Delta readers give null.
      int channels =
          row.getType().containsField("channel") ? row.getFieldRepetitionCount("channel") : 0;
      assertEquals(upgraded ? 1 : 0, channels, "channel of " + id);
    }
    assertFalse(snapshot.getAllFiles().isEmpty());
  }

  private static void assertType(DeltaType type, boolean nullable, StructType in, String field) {
    assertEquals(type, in.field(field).type(), field);
    assertEquals(nullable, in.field(field).nullable(), field + " nullable");
  }

  private Map<Long, Group> rows(Snapshot snapshot) throws Exception {
    Map<Long, Group> rows = new HashMap<>();
    for (DeltaTableContents.Row r : DeltaTableContents.rows(conf, table, snapshot)) {
      rows.put(r.values().getLong("id", 0), r.values());
    }
    return rows;
  }

  /** A Fixed value is a byte buffer in Connect: the converter's own doing, checked here. */
  @Test
  void theMappingGivesFixedAsBytesAndEnumAsString() {
    SchemaAndValue connect = avroData.toConnectData(v1, AvroOrders.order(v1, 1));
    org.apache.kafka.connect.data.Struct s = (org.apache.kafka.connect.data.Struct) connect.value();
    assertTrue(s.get("digest") instanceof byte[] || s.get("digest") instanceof ByteBuffer);
    assertEquals("PAID", s.get("status"));
    assertEquals(
        "io.confluent.connect.avro.Union", connect.schema().field("choice").schema().name());
  }
}
