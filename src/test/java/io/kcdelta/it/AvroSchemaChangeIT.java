package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructField;
import io.kcdelta.testutil.AvroOrders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Avro topic whose producers upgrade their schema mid-stream (a new field with a default), on a
 * real Connect cluster: the table gains the column while it is being written, and every record is
 * in it once, the old ones with null in the new column.
 */
class AvroSchemaChangeIT {
  private static final String TOPIC = "avro-orders";
  private static final String CONNECTOR = "avro-sink";
  private static final int PARTITIONS = 2;
  private static final int PER_VERSION = 3_000;

  @TempDir Path dir;

  @Test
  void theTableGainsTheNewFieldMidStreamAndKeepsEveryRecordOnce() throws Exception {
    String table = dir.resolve("avro-orders").toUri().toString();
    EmbeddedConnectCluster connect = ConnectCluster.start(getClass().getSimpleName(), 1);
    try {
      connect.kafka().createTopic(TOPIC, PARTITIONS);
      Map<String, String> c = ConnectCluster.sinkConfig(TOPIC, PARTITIONS, table);
      c.put("value.converter", IndexedAvroConverter.class.getName());
      c.put("flush.interval.ms", "1000");
      ConnectCluster.runConnector(connect, CONNECTOR, c, PARTITIONS);
      Configuration conf = new Configuration();

      try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
        produce(producer, 0, 0, PER_VERSION);
        DeltaTableContents.awaitRows(conf, table, PER_VERSION, 120_000);
        long versionBefore = DeltaLog.forTable(conf, table).update().getVersion();
        assertTrue(
            !List.of(
                    DeltaLog.forTable(conf, table)
                        .update()
                        .getMetadata()
                        .getSchema()
                        .getFieldNames())
                .contains("channel"),
            "no channel column before the upgrade");
        // The upgrade: new records carry the new field; one old producer still writes a few.
        produce(producer, 1, PER_VERSION, 2 * PER_VERSION);
        produce(producer, 0, 2 * PER_VERSION, 2 * PER_VERSION + 100);
        DeltaTableContents.awaitRows(conf, table, 2 * PER_VERSION + 100, 120_000);
        assertTrue(DeltaLog.forTable(conf, table).update().getVersion() > versionBefore);
      }

      Snapshot snapshot = DeltaLog.forTable(conf, table).update();
      StructField channel = snapshot.getMetadata().getSchema().get("channel");
      assertEquals(new StringType(), channel.getDataType());
      assertTrue(channel.isNullable());
      Map<Long, Integer> copies = new HashMap<>();
      int withChannel = 0;
      for (DeltaTableContents.Row r : DeltaTableContents.rows(conf, table, snapshot)) {
        Group row = r.values();
        long id = row.getLong("id", 0);
        copies.merge(id, 1, Integer::sum);
        boolean has =
            row.getType().containsField("channel") && row.getFieldRepetitionCount("channel") == 1;
        boolean upgraded = id >= PER_VERSION && id < 2 * PER_VERSION;
        assertEquals(upgraded, has, "channel of record " + id);
        if (has) {
          assertEquals("web", row.getString("channel", 0));
          withChannel++;
        }
      }
      assertEquals(2 * PER_VERSION + 100, copies.size(), "distinct records");
      copies.forEach((id, n) -> assertEquals(1, n, "copies of record " + id));
      System.out.printf(
          "[avro-schema-change-it] %d records (%d with the new field), table version %d, %d files%n",
          copies.size(), withChannel, snapshot.getVersion(), snapshot.getAllFiles().size());
    } finally {
      connect.stop();
    }
  }

  private static void produce(
      KafkaProducer<byte[], byte[]> producer, int version, long from, long to) throws Exception {
    for (long id = from; id < to; id++) {
      producer.send(
          new ProducerRecord<>(
              TOPIC,
              (int) (id % PARTITIONS),
              Long.toString(id).getBytes(StandardCharsets.UTF_8),
              IndexedAvroConverter.encode(
                  version, AvroOrders.order(IndexedAvroConverter.SCHEMAS.get(version), id))));
    }
    producer.flush();
  }
}
