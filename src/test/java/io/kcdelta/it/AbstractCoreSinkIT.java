package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.types.ArrayType;
import io.delta.standalone.types.DecimalType;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructType;
import io.delta.standalone.types.TimestampType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The core promise on a real Connect cluster: 3 workers, 6 tasks, a 6-partition topic, every record
 * in the Delta table exactly once with the txn versions at the last offsets, also after a worker
 * leaves mid-stream and the connector restarts. Subclasses choose the storage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractCoreSinkIT {
  static final String TOPIC = "orders";
  static final String CONNECTOR = "orders-sink";
  static final int PARTITIONS = 6;
  static final int FIRST_BATCH = 100_000;
  static final int SECOND_BATCH = 60_000;

  EmbeddedConnectCluster connect;

  /** The table root, e.g. file:///tmp/x/orders or s3a://bucket/orders. */
  abstract String tablePath();

  /** Connector settings for the storage and log store. */
  abstract Map<String, String> storageConfig();

  /** A Hadoop configuration that reads the table independently of the connector. */
  abstract Configuration readerConf();

  @BeforeAll
  void startCluster() throws Exception {
    startStorage();
    connect = ConnectCluster.start(getClass().getSimpleName(), 3);
  }

  void startStorage() throws Exception {}

  @AfterAll
  void stopCluster() throws Exception {
    if (connect != null) {
      connect.stop();
    }
    stopStorage();
  }

  void stopStorage() throws Exception {}

  Map<String, String> connectorConfig() {
    Map<String, String> c = ConnectCluster.jsonSinkConfig(TOPIC, PARTITIONS, tablePath(), true);
    c.put("delta.table.partition.columns", "region");
    c.put("flush.interval.ms", "3000");
    c.putAll(storageConfig());
    return c;
  }

  @Test
  void everyRecordExactlyOnceAcrossWorkerLossAndRestart() throws Exception {
    long t0 = System.nanoTime();
    connect.kafka().createTopic(TOPIC, PARTITIONS);
    ConnectCluster.runConnector(connect, CONNECTOR, connectorConfig(), PARTITIONS);

    OrderRecords records = new OrderRecords();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      records.produce(producer, TOPIC, PARTITIONS, 0, FIRST_BATCH);
      awaitTxnVersions(records.lastOffsets(), 240_000);
      long t1 = System.nanoTime();
      DeltaTableContents first = verify(records, FIRST_BATCH);
      List<Integer> txns = DeltaTableContents.txnsPerCommit(readerConf(), tablePath());
      System.out.printf(
          "[core-it %s] phase 1: %d records, table version %d, %d files, %.1f s; txns per commit %s%n",
          getClass().getSimpleName(),
          FIRST_BATCH,
          first.version(),
          first.files().size(),
          (t1 - t0) / 1e9,
          txns);
      // The workers here share one JVM, so all six tasks share one commit group.
      assertTrue(
          txns.stream().anyMatch(n -> n >= 2),
          "some commit carries the offsets of several tasks (one partition each): " + txns);

      // A worker leaves while records keep arriving; then the connector and its tasks restart.
      records.produce(producer, TOPIC, PARTITIONS, FIRST_BATCH, FIRST_BATCH + SECOND_BATCH / 2);
      WorkerHandle leaving = connect.workers().iterator().next();
      connect.removeWorker(leaving);
      records.produce(
          producer, TOPIC, PARTITIONS, FIRST_BATCH + SECOND_BATCH / 2, FIRST_BATCH + SECOND_BATCH);
      connect.restartConnectorAndTasks(CONNECTOR, false, false, false);
      connect
          .assertions()
          .assertConnectorAndExactlyNumTasksAreRunning(
              CONNECTOR, PARTITIONS, "tasks did not run again after the restart");
      awaitTxnVersions(records.lastOffsets(), 240_000);
      DeltaTableContents second = verify(records, FIRST_BATCH + SECOND_BATCH);
      System.out.printf(
          "[core-it %s] phase 2: %d records, table version %d, %d files, total %.1f s%n",
          getClass().getSimpleName(),
          FIRST_BATCH + SECOND_BATCH,
          second.version(),
          second.files().size(),
          (System.nanoTime() - t0) / 1e9);
    }
  }

  private void awaitTxnVersions(Map<TopicPartition, Long> expected, long timeoutMs)
      throws InterruptedException {
    Map<String, Long> want = new TreeMap<>();
    expected.forEach((tp, offset) -> want.put(appId(tp), offset));
    long deadline = System.currentTimeMillis() + timeoutMs;
    Map<String, Long> held = Map.of();
    while (System.currentTimeMillis() < deadline) {
      try {
        held =
            new TreeMap<>(DeltaTableContents.txnVersions(readerConf(), tablePath(), want.keySet()));
      } catch (RuntimeException e) {
        System.out.println("[core-it] reading the table failed (retrying): " + e);
      }
      if (want.equals(held)) {
        return;
      }
      Thread.sleep(500);
    }
    // The summary line of a failed run shows this message, so it says where each task stands.
    fail(
        "txn versions did not reach the last offsets "
            + want
            + " within "
            + timeoutMs
            + " ms; table holds "
            + held
            + "; "
            + taskStates());
  }

  /** What Connect says of the tasks (a failed task's trace says why a partition stopped moving). */
  private String taskStates() {
    try {
      return "connector status: "
          + connect.connectorStatus(CONNECTOR).tasks().stream()
              .map(
                  t ->
                      "task "
                          + t.id()
                          + " "
                          + t.state()
                          + " on "
                          + t.workerId()
                          + (t.trace() == null ? "" : ": " + t.trace()))
              .toList();
    } catch (RuntimeException e) {
      return "connector status unavailable: " + e;
    }
  }

  static String appId(TopicPartition tp) {
    return CONNECTOR + "-" + tp.topic() + "-" + tp.partition();
  }

  private DeltaTableContents verify(OrderRecords records, int expectedRows) throws Exception {
    DeltaTableContents table = DeltaTableContents.read(readerConf(), tablePath());
    assertEquals(expectedRows, table.idCounts().size(), "distinct records in the table");
    assertEquals(
        expectedRows,
        table.rows(),
        "rows in the table (duplicates would exceed the distinct count)");
    for (long id = 0; id < expectedRows; id++) {
      assertEquals(
          1,
          table.idCounts().getOrDefault(id, 0),
          "copies of record "
              + id
              + " at "
              + records.partitionOfId.get(id)
              + "@"
              + records.offsetOfId.get(id));
      assertEquals(
          OrderRecords.region(id),
          table.partitionValuesById().get(id).get("region"),
          "partition value of record " + id);
    }
    Map<String, Long> wantVersions = new TreeMap<>();
    records.lastOffsets().forEach((tp, offset) -> wantVersions.put(appId(tp), offset));
    assertEquals(
        wantVersions,
        new TreeMap<>(
            DeltaTableContents.txnVersions(readerConf(), tablePath(), wantVersions.keySet())),
        "txn versions");

    assertEquals(List.of("region"), table.metadata().getPartitionColumns());
    StructType schema = table.metadata().getSchema();
    assertEquals(
        List.of("id", "region", "amount", "ts", "note", "tags", "customer"),
        List.of(schema.getFieldNames()));
    assertEquals(new LongType(), schema.get("id").getDataType());
    assertEquals(new StringType(), schema.get("region").getDataType());
    assertEquals(new DecimalType(12, 2), schema.get("amount").getDataType());
    assertEquals(new TimestampType(), schema.get("ts").getDataType());
    assertTrue(schema.get("note").isNullable());
    assertTrue(schema.get("tags").getDataType() instanceof ArrayType);
    assertTrue(schema.get("customer").getDataType() instanceof StructType);

    ObjectMapper json = new ObjectMapper();
    long statRows = 0;
    for (AddFile add : table.files()) {
      JsonNode stats = json.readTree(add.getStats());
      statRows += stats.get("numRecords").asLong();
      assertTrue(
          stats.get("minValues").get("id").asLong() <= stats.get("maxValues").get("id").asLong());
    }
    assertEquals(expectedRows, statRows, "numRecords in the files' stats");
    return table;
  }
}
