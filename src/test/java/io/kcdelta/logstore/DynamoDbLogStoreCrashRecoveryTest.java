package io.kcdelta.logstore;

import static io.kcdelta.logstore.LogStoreTestSupport.addLine;
import static io.kcdelta.logstore.LogStoreTestSupport.deltaFile;
import static io.kcdelta.logstore.LogStoreTestSupport.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A writer dies after each step of committing version 1; a later reader or writer must finish a won
 * commit (nothing lost) and must not see an unwon one.
 */
class DynamoDbLogStoreCrashRecoveryTest {

  private static final String DDB_TABLE = "delta_log_crash";
  private static final String CRASHED_FILE = "crashed.parquet";
  private static final String NEXT_FILE = "next.parquet";

  private static Dynalite ddb;
  private static S3Proxy s3;
  private static DynamoDbClient client;

  enum Recoverer {
    LIST_FROM,
    DELTA_LOG_UPDATE,
    STORE_WRITE_NEXT,
    DELTA_LOG_COMMIT
  }

  @BeforeAll
  static void startServers() {
    ddb = Dynalite.inMemory();
    s3 = S3Proxy.inMemory();
    client = LogStoreTestSupport.client(ddb);
  }

  @AfterAll
  static void stopServers() {
    client.close();
    s3.close();
    ddb.close();
  }

  static List<Arguments> crashPointsAndRecoverers() {
    List<Arguments> cases = new java.util.ArrayList<>();
    for (CommitHook.Step step : CommitHook.Step.values()) {
      for (Recoverer r : Recoverer.values()) {
        cases.add(Arguments.of(step, r));
      }
    }
    return cases;
  }

  @ParameterizedTest(name = "crash after {0}, then {1}")
  @MethodSource("crashPointsAndRecoverers")
  void laterReaderOrWriterFinishesAWonCommit(CommitHook.Step crashAfter, Recoverer recoverer)
      throws IOException {
    Configuration conf = LogStoreTestSupport.conf(s3, ddb, DDB_TABLE);
    String tablePath = LogStoreTestSupport.uniqueTablePath(s3);
    LogStoreTestSupport.createDeltaTable(conf, tablePath);
    boolean won = crashAfter != CommitHook.Step.TEMP_WRITTEN;

    DynamoDbLogStore dying =
        new DynamoDbLogStore(
            conf,
            (step, file) -> {
              if (step == crashAfter) {
                throw new SimulatedCrash(step);
              }
            });
    String crashedCommit = addLine(CRASHED_FILE) + "\n";
    assertThrows(
        SimulatedCrash.class,
        () ->
            dying.write(
                deltaFile(tablePath, 1), List.of(addLine(CRASHED_FILE)).iterator(), false, conf));

    switch (recoverer) {
      case LIST_FROM ->
          new DynamoDbLogStore(conf)
              .listFrom(deltaFile(tablePath, 0), conf)
              .forEachRemaining(s -> {});
      case DELTA_LOG_UPDATE ->
          assertEquals(won ? 1 : 0, DeltaLog.forTable(conf, tablePath).update().getVersion());
      case STORE_WRITE_NEXT -> {
        DynamoDbLogStore next = new DynamoDbLogStore(conf);
        if (won) {
          assertThrows(
              FileAlreadyExistsException.class,
              () ->
                  next.write(
                      deltaFile(tablePath, 1),
                      List.of(addLine(NEXT_FILE)).iterator(),
                      false,
                      conf));
        }
        next.write(
            deltaFile(tablePath, won ? 2 : 1), List.of(addLine(NEXT_FILE)).iterator(), false, conf);
      }
      case DELTA_LOG_COMMIT ->
          assertEquals(
              won ? 2 : 1,
              LogStoreTestSupport.appendFile(DeltaLog.forTable(conf, tablePath), NEXT_FILE));
    }

    Map<String, AttributeValue> item = LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 1);
    Snapshot snapshot = DeltaLog.forTable(conf, tablePath).update();
    Set<String> files =
        snapshot.getAllFiles().stream().map(AddFile::getPath).collect(Collectors.toSet());
    boolean nextWrote =
        recoverer == Recoverer.STORE_WRITE_NEXT || recoverer == Recoverer.DELTA_LOG_COMMIT;
    if (won) {
      assertEquals("true", item.get("complete").s(), "recovery marks the entry complete");
      assertTrue(item.containsKey("expireTime"));
      assertEquals(
          crashedCommit,
          read(conf, deltaFile(tablePath, 1)),
          "1.json is the crashed writer's commit");
      assertTrue(files.contains(CRASHED_FILE), "won commit not lost: " + files);
    } else {
      assertFalse(files.contains(CRASHED_FILE), "an unwon commit must stay invisible: " + files);
      if (!nextWrote) {
        assertTrue(item.isEmpty(), "nothing claimed version 1");
      }
    }
    assertEquals(nextWrote, files.contains(NEXT_FILE), files.toString());
    long expectedVersion = (won ? 1 : 0) + (nextWrote ? 1 : 0);
    assertEquals(expectedVersion, snapshot.getVersion());
    for (long v = 0; v <= expectedVersion; v++) {
      assertTrue(
          new Path(tablePath).getFileSystem(conf).exists(deltaFile(tablePath, v)),
          "no hole at " + v);
    }
  }
}
