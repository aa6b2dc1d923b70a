package io.kcdelta.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import io.kcdelta.testutil.StandaloneTypes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status command against a table whose versions, rows and txn offsets are known. */
class DeltaSinkStatusTest {
  @TempDir Path dir;
  private String table;

  /**
   * Version 0: the table; 1: two files (100 + 50 rows) with the offsets of partitions 0 and 1 of
   * topic "my-orders" for connector "orders-sink"; 2: one file (25 rows) moving partition 0 on, and
   * a streaming job's txn.
   */
  @BeforeEach
  void createTable() {
    table = dir.resolve("t").toUri().toString();
    DeltaLog log = DeltaLog.forTable(new Configuration(), table);
    OptimisticTransaction create = log.startTransaction();
    create.updateMetadata(
        Metadata.builder()
            .schema(
                StandaloneTypes.of(
                    new StructType(
                        new StructField("id", PrimitiveType.LONG, false),
                        new StructField("region", PrimitiveType.STRING, true))))
            .partitionColumns(List.of("region"))
            .build());
    create.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), "test");
    commit(
        log,
        List.of(add("a", 100), add("b", 50)),
        txn("orders-sink-my-orders-0", 99),
        txn("orders-sink-my-orders-1", 49));
    commit(
        log,
        List.of(add("c", 25)),
        txn("orders-sink-my-orders-0", 124),
        txn("nightly-backfill", 7));
  }

  @Test
  void jsonHasTheVersionsRowsAndEachPartitionsOffset() {
    Result r = run("--json", "--set", "delta.txn.app.id=orders-sink", table);
    assertEquals(0, r.code, r.err);
    @SuppressWarnings("unchecked")
    Map<String, Object> status = (Map<String, Object>) JsonParser.parse(r.out);
    assertEquals(2L, status.get("version"));
    assertEquals(3L, status.get("files"));
    assertEquals(175L, status.get("rows"));
    assertTrue(status.containsKey("awsIdentity"));
    assertEquals(null, status.get("awsIdentity"), "a file:// table: no AWS identity");
    assertEquals(List.of("region"), status.get("partitionColumns"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> commits = (List<Map<String, Object>>) status.get("commits");
    assertEquals(List.of(0L, 1L, 2L), commits.stream().map(c -> c.get("version")).toList());
    assertEquals(List.of(0L, 150L, 25L), commits.stream().map(c -> c.get("rows")).toList());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> offsets = (List<Map<String, Object>>) status.get("offsets");
    assertEquals(3, offsets.size());
    assertEquals("nightly-backfill", offsets.get(0).get("appId"));
    assertEquals(null, offsets.get(0).get("topic"), "not a Kafka partition's appId");
    assertEquals(
        Map.of(
            "appId", "orders-sink-my-orders-0",
            "prefix", "orders-sink",
            "topic", "my-orders",
            "partition", 0L,
            "txnVersion", 124L),
        pick(offsets.get(1), "appId", "prefix", "topic", "partition", "txnVersion"));
    assertEquals(49L, offsets.get(2).get("txnVersion"));
    assertEquals(null, offsets.get(2).get("lag"), "no Kafka asked: no lag");
  }

  @Test
  void textSaysWhereEachPartitionResumesAndTheConnectorConfigGivesThePrefix() throws Exception {
    Path config = dir.resolve("connector.json");
    Files.writeString(
        config,
        "{\"name\": \"orders-sink\", \"config\": {\"connector.class\": \"io.kcdelta.DeltaSinkConnector\","
            + " \"delta.table.path\": \"file:///elsewhere\"}}");
    Result r = run("--config", config.toString(), "--versions", "2", table);
    assertEquals(0, r.code, r.err);
    assertTrue(r.out.contains("version 2 ("), r.out);
    assertTrue(r.out.contains("3 data files, 175 rows"), r.out);
    assertTrue(
        r.out.matches("(?s).*\\n  orders-sink +my-orders +0 +124 .*"),
        "partition 0 row:\n" + r.out);
    assertTrue(r.out.matches("(?s).*\\n  orders-sink +my-orders +1 +49 .*"), r.out);
    assertTrue(!r.out.contains("\n         0  "), "only the 2 latest versions:\n" + r.out);
  }

  @Test
  void withoutAConfigTheCommitsSayWherePrefixAndTopicSplitEvenWithDashesInBoth() {
    String named = dir.resolve("named").toUri().toString();
    io.kcdelta.delta.TableLog log =
        new io.kcdelta.delta.TableLog(named, new Configuration(), "test");
    log.commit(
        (base, since) ->
            new io.kcdelta.delta.CommitPlan(
                io.kcdelta.delta.Metadata.create(
                    new StructType(new StructField("id", PrimitiveType.LONG, true)),
                    List.of(),
                    Map.of()),
                List.of(),
                List.of(),
                List.of(new io.kcdelta.delta.Txn("orders-sink-my-orders-3", 41, 0L)),
                "WRITE",
                Map.of(),
                true,
                io.kcdelta.delta.KafkaCommitInfo.of("orders-sink", List.of("my-orders"))
                    .commitInfo()));

    Result r = run("--json", named);
    assertEquals(0, r.code, r.err);
    @SuppressWarnings("unchecked")
    Map<String, Object> offset =
        ((List<Map<String, Object>>) ((Map<String, Object>) JsonParser.parse(r.out)).get("offsets"))
            .get(0);
    assertEquals(
        Map.of("prefix", "orders-sink", "topic", "my-orders", "partition", 3L),
        pick(offset, "prefix", "topic", "partition"),
        "the connector name alone would have split it as orders / sink-my-orders");
  }

  @Test
  void badArgumentsAndAMissingTableSaySo() {
    Result usage = run("--versions");
    assertEquals(2, usage.code);
    assertTrue(usage.err.contains("--versions needs a value"), usage.err);
    Result none = run(dir.resolve("none").toUri().toString());
    assertEquals(1, none.code);
    assertTrue(none.err.contains("No Delta table at"), none.err);
    assertEquals(0, run("--help").code);
  }

  private static Map<String, Object> pick(Map<String, Object> m, String... keys) {
    Map<String, Object> out = new java.util.HashMap<>();
    for (String k : keys) {
      out.put(k, m.get(k));
    }
    return out;
  }

  private static void commit(DeltaLog log, List<AddFile> adds, SetTransaction... txns) {
    List<Action> actions = new ArrayList<>(adds);
    actions.addAll(List.of(txns));
    log.startTransaction().commit(actions, new Operation(Operation.Name.WRITE), "test");
  }

  private static AddFile add(String name, long rows) {
    return AddFile.builder("region=eu/" + name + ".parquet", Map.of("region", "eu"), 1000, 1, true)
        // written verbatim: a JSON string holding the stats (see LAB.md)
        .stats(io.kcdelta.schema.JsonText.quote("{\"numRecords\":" + rows + "}"))
        .build();
  }

  private static SetTransaction txn(String appId, long version) {
    return new SetTransaction(appId, version, Optional.of(System.currentTimeMillis()));
  }

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        DeltaSinkStatus.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
