package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.types.DateType;
import io.delta.standalone.types.StructType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka metadata, key and timestamp date columns on a real Connect cluster: every row carries the
 * partition, offset, timestamp and headers Kafka gave its record, and the table is partitioned by
 * the record timestamp's UTC date.
 */
class RecordColumnsIT {
  private static final String TOPIC = "tracked";
  private static final String CONNECTOR = "tracked-sink";
  private static final int PARTITIONS = 3;
  private static final int RECORDS = 6_000;

  /**
   * Three UTC days of record timestamps, 2026-11-01 .. 2026-11-03 (the broker refuses future ones).
   */
  private static final long FIRST_TS = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

  private static final long TS_STEP = 3 * 86_400_000L / RECORDS;

  @TempDir Path dir;

  /** What Kafka said of each id's record. */
  private record Produced(int partition, long offset, long timestamp) {}

  @Test
  void everyRowCarriesItsRecordsKafkaCoordinatesKeyAndDate() throws Exception {
    String table = dir.resolve("tracked").toUri().toString();
    EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 1);
    try {
      connect.kafka().createTopic(TOPIC, PARTITIONS);
      Map<String, String> c = ConnectCluster.jsonSinkConfig(TOPIC, PARTITIONS, table, true);
      c.put("flush.interval.ms", "2000");
      c.put(
          "delta.record.metadata.columns",
          "topic,partition,offset,timestamp,timestamp.type,headers");
      c.put("delta.record.key.column", "order_key");
      c.put("delta.record.timestamp.date.column", "kafka_date");
      c.put("delta.table.partition.columns", "kafka_date");
      ConnectCluster.runConnector(connect, CONNECTOR, c, PARTITIONS);

      Map<Long, Produced> produced = produce(connect);
      Configuration conf = new Configuration();
      DeltaTableContents.awaitRows(conf, table, RECORDS, 120_000);

      Snapshot snapshot = DeltaLog.forTable(conf, table).update();
      StructType schema = snapshot.getMetadata().getSchema();
      assertEquals(List.of("kafka_date"), snapshot.getMetadata().getPartitionColumns());
      assertEquals(new DateType(), schema.get("kafka_date").getDataType());
      assertTrue(schema.get("_kafka").getDataType() instanceof StructType);

      Map<Long, Integer> copies = new HashMap<>();
      Map<String, Integer> rowsPerDate = new HashMap<>();
      for (DeltaTableContents.Row r : DeltaTableContents.rows(conf, table, snapshot)) {
        Group row = r.values();
        String date = r.partitionValues().get("kafka_date");
        long id = row.getLong("id", 0);
        copies.merge(id, 1, Integer::sum);
        rowsPerDate.merge(date, 1, Integer::sum);
        Produced p = produced.get(id);
        Group kafka = row.getGroup("_kafka", 0);
        String where = "record " + id;
        assertEquals(TOPIC, kafka.getString("topic", 0), where);
        assertEquals(p.partition(), kafka.getInteger("partition", 0), where);
        assertEquals(p.offset(), kafka.getLong("offset", 0), where);
        assertEquals(p.timestamp() * 1000, kafka.getLong("timestamp", 0), where + " (micros)");
        assertEquals("CreateTime", kafka.getString("timestamp_type", 0), where);
        Group headers = kafka.getGroup("headers", 0);
        assertEquals(2, headers.getFieldRepetitionCount("list"), where);
        Group first = headers.getGroup("list", 0).getGroup("element", 0);
        Group second = headers.getGroup("list", 1).getGroup("element", 0);
        assertEquals("source", first.getString("key", 0), where);
        assertEquals("it-" + (id % 4), first.getString("value", 0), where);
        assertEquals("seq", second.getString("key", 0), where);
        assertEquals(String.valueOf(id), second.getString("value", 0), where);
        assertEquals("order-" + id, row.getString("order_key", 0), where);
        assertEquals(
            LocalDate.ofInstant(Instant.ofEpochMilli(p.timestamp()), ZoneOffset.UTC).toString(),
            date,
            where);
      }
      assertEquals(RECORDS, copies.size(), "distinct records");
      copies.forEach((id, n) -> assertEquals(1, n, "copies of record " + id));
      assertEquals(
          Map.of("2026-11-01", 2_000, "2026-11-02", 2_000, "2026-11-03", 2_000), rowsPerDate);
      System.out.printf(
          "[record-columns-it] %d rows, each with its partition/offset/timestamp/headers, key and"
              + " date; rows per kafka_date %s; table version %d, %d files%n",
          RECORDS, rowsPerDate, snapshot.getVersion(), snapshot.getAllFiles().size());
    } finally {
      connect.stop();
    }
  }

  private static Map<Long, Produced> produce(EmbeddedConnectCluster connect) throws Exception {
    Map<Long, Produced> produced = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (long id = 0; id < RECORDS; id++) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("source", ("it-" + (id % 4)).getBytes(StandardCharsets.UTF_8));
        headers.add("seq", Long.toString(id).getBytes(StandardCharsets.UTF_8));
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    TOPIC,
                    (int) (id % PARTITIONS),
                    FIRST_TS + id * TS_STEP,
                    ("order-" + id).getBytes(StandardCharsets.UTF_8),
                    OrderRecords.json(id),
                    headers)));
      }
      producer.flush();
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata md = sent.get(i).get();
        produced.put((long) i, new Produced(md.partition(), md.offset(), md.timestamp()));
      }
    }
    return produced;
  }
}
