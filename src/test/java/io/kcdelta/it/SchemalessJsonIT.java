package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.types.ArrayType;
import io.delta.standalone.types.DateType;
import io.delta.standalone.types.DecimalType;
import io.delta.standalone.types.DoubleType;
import io.delta.standalone.types.IntegerType;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.MapType;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.delta.standalone.types.TimestampType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plain JSON ({@code schemas.enable=false}) into a table someone else created: every good record
 * lands once with every value coerced into its column, every bad one goes to the dead letter queue
 * and none of them into the table.
 */
class SchemalessJsonIT {
  private static final String TOPIC = "plain-json";
  private static final String DLQ = "plain-json-dlq";
  private static final String CONNECTOR = "plain-json-sink";
  private static final int PARTITIONS = 3;
  private static final int GOOD = 50_000;
  private static final int BAD = 100;
  private static final String[] REGIONS = {"eu", "us", "apac"};
  private static final long TS0 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

  @TempDir Path dir;

  private static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            new StructField("id", new LongType(), false),
            new StructField("region", new StringType(), false),
            new StructField("amount", new DecimalType(10, 2)),
            new StructField("ts", new TimestampType()),
            new StructField("day", new DateType()),
            new StructField("score", new DoubleType()),
            new StructField(
                "customer",
                new StructType(
                    new StructField[] {
                      new StructField("name", new StringType()),
                      new StructField("tier", new IntegerType())
                    })),
            new StructField("tags", new ArrayType(new StringType(), true)),
            new StructField("attrs", new MapType(new StringType(), new LongType(), true)),
          });

  /** Good record {@code id}: values as a JSON producer would write them. */
  private static String good(long id) {
    String amount =
        id % 2 == 0
            ? BigDecimal.valueOf(id * 7, 2).toPlainString()
            : "\"" + BigDecimal.valueOf(id * 7, 2) + "\"";
    String ts =
        id % 3 == 0 ? Long.toString(TS0 + id) : "\"" + Instant.ofEpochMilli(TS0 + id) + "\"";
    String day =
        id % 2 == 0
            ? "\"" + LocalDate.ofEpochDay(20_000 + id % 30) + "\""
            : Long.toString(20_000 + id % 30);
    String customer =
        id % 7 == 0 ? "null" : "{\"name\":\"c" + id % 100 + "\",\"tier\":" + id % 4 + "}";
    return "{\"id\":"
        + id
        + ",\"region\":\""
        + REGIONS[(int) (id % 3)]
        + "\""
        + ",\"amount\":"
        + amount
        + ",\"ts\":"
        + ts
        + ",\"day\":"
        + day
        + ",\"score\":"
        + (id % 5 == 0 ? Long.toString(id) : id + ".5")
        + ",\"customer\":"
        + customer
        + ",\"tags\":[\"t"
        + id % 3
        + "\",\"x\"]"
        + ",\"attrs\":{\"n\":"
        + id
        + "}"
        + (id % 11 == 0 ? "" : ",\"note\":null")
        + "}";
  }

  /** Bad record number {@code n}: each kind of value the table's columns cannot take. */
  private static String bad(int n) {
    long id = -1 - n;
    String base = "{\"id\":" + id + ",\"region\":\"eu\"";
    return switch (n % 5) {
      case 0 -> base + ",\"amount\":\"12.3.4\"}";
      case 1 -> base + ",\"amount\":123456789012.5}";
      case 2 -> base + ",\"ts\":\"last tuesday\"}";
      case 3 -> base + ",\"customer\":{\"name\":\"x\",\"tier\":\"gold\"}}";
      default -> "{\"region\":\"eu\",\"score\":1.5}";
    };
  }

  @Test
  void plainJsonIntoAForeignTableExactlyOnceWithBadRecordsInTheDeadLetterQueue() throws Exception {
    String table = dir.resolve("plain").toUri().toString();
    Configuration conf = new Configuration();
    createTable(conf, table);
    EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 1);
    try {
      connect.kafka().createTopic(TOPIC, PARTITIONS);
      connect.kafka().createTopic(DLQ, 1);
      Map<String, String> c = ConnectCluster.jsonSinkConfig(TOPIC, PARTITIONS, table, false);
      c.put("flush.interval.ms", "2000");
      c.put("errors.tolerance", "all");
      c.put("errors.deadletterqueue.topic.name", DLQ);
      c.put("errors.deadletterqueue.topic.replication.factor", "1");
      c.put("errors.deadletterqueue.context.headers.enable", "true");
      ConnectCluster.runConnector(connect, CONNECTOR, c, PARTITIONS);

      try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
        int badSent = 0;
        for (long id = 0; id < GOOD; id++) {
          send(producer, id, good(id));
          if (id % (GOOD / BAD) == GOOD / BAD / 2) {
            send(producer, -1 - badSent, bad(badSent++));
          }
        }
        producer.flush();
        assertEquals(BAD, badSent);
      }
      ConsumerRecords<byte[], byte[]> dead = connect.kafka().consume(BAD, 120_000, DLQ);
      DeltaTableContents.awaitRows(conf, table, GOOD, 180_000);

      Snapshot snapshot = DeltaLog.forTable(conf, table).update();
      assertEquals(SCHEMA, snapshot.getMetadata().getSchema(), "the table's schema is untouched");
      Map<Long, Integer> copies = new HashMap<>();
      for (DeltaTableContents.Row r : DeltaTableContents.rows(conf, table, snapshot)) {
        Group row = r.values();
        String region = r.partitionValues().get("region");
        long id = row.getLong("id", 0);
        copies.merge(id, 1, Integer::sum);
        checkRow(id, region, row);
      }
      assertEquals(GOOD, copies.size(), "distinct records in the table");
      copies.forEach((id, n) -> assertEquals(1, n, "copies of record " + id));

      List<String> reasons = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        assertTrue(new String(r.value(), StandardCharsets.UTF_8).contains("\"region\":\"eu\""));
        reasons.add(
            new String(
                r.headers().lastHeader("__connect.errors.exception.message").value(),
                StandardCharsets.UTF_8));
      }
      assertEquals(BAD, dead.count(), "records in the dead letter queue");
      assertTrue(
          reasons.stream().anyMatch(m -> m.contains("'amount'") && m.contains("not a number")),
          reasons.get(0));
      assertTrue(
          reasons.stream().anyMatch(m -> m.contains("more than 10 digits")), reasons.toString());
      assertTrue(
          reasons.stream().anyMatch(m -> m.contains("'ts'") && m.contains("ISO-8601")),
          reasons.toString());
      assertTrue(reasons.stream().anyMatch(m -> m.contains("'customer.tier'")), reasons.toString());
      assertTrue(
          reasons.stream().anyMatch(m -> m.contains("'id'") && m.contains("NOT NULL")),
          reasons.toString());
      System.out.printf(
          "[schemaless-json-it] %d rows in the table, each value checked; %d records in the dead"
              + " letter queue, e.g. \"%s\"; table version %d, %d files%n",
          copies.size(),
          dead.count(),
          reasons.get(1),
          snapshot.getVersion(),
          snapshot.getAllFiles().size());
    } finally {
      connect.stop();
    }
  }

  private static void checkRow(long id, String region, Group row) {
    String where = "record " + id;
    assertEquals(REGIONS[(int) (id % 3)], region, where);
    assertEquals(id * 7, row.getLong("amount", 0), where + " amount (unscaled, scale 2)");
    assertEquals((TS0 + id) * 1000, row.getLong("ts", 0), where + " ts");
    assertEquals(20_000 + id % 30, row.getInteger("day", 0), where + " day");
    assertEquals(id % 5 == 0 ? id : id + 0.5, row.getDouble("score", 0), where + " score");
    if (id % 7 == 0) {
      assertEquals(0, row.getFieldRepetitionCount("customer"), where);
    } else {
      Group customer = row.getGroup("customer", 0);
      assertEquals("c" + id % 100, customer.getString("name", 0), where);
      assertEquals(id % 4, customer.getInteger("tier", 0), where);
    }
    Group tags = row.getGroup("tags", 0);
    assertEquals(2, tags.getFieldRepetitionCount("list"), where);
    assertEquals("t" + id % 3, tags.getGroup("list", 0).getString("element", 0), where);
    Group entry = row.getGroup("attrs", 0).getGroup("key_value", 0);
    assertEquals(Binary.fromString("n"), entry.getBinary("key", 0), where);
    assertEquals(id, entry.getLong("value", 0), where);
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, long id, String json) {
    producer.send(
        new ProducerRecord<>(
            TOPIC,
            (int) Math.floorMod(id, PARTITIONS),
            Long.toString(id).getBytes(StandardCharsets.UTF_8),
            json.getBytes(StandardCharsets.UTF_8)));
  }

  private static void createTable(Configuration conf, String table) {
    OptimisticTransaction txn = DeltaLog.forTable(conf, table).startTransaction();
    txn.updateMetadata(
        Metadata.builder().schema(SCHEMA).partitionColumns(List.of("region")).build());
    txn.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), "someone-else/1.0");
  }
}
