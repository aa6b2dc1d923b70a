package io.kcdelta.logstore;

import io.kcdelta.it.infra.Dynalite;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The production log store with a crash that a test arms from outside: the next commit to a table
 * under a given path stops right after one step, as a process dying there would (the exception
 * leaves the store the way a kill would: nothing after that step runs). Fires once per arming.
 *
 * <p>Select it for one connector with {@code hadoop.delta.logStore.s3a.impl=} this class: Delta
 * Standalone builds log stores reflectively through the public {@code (Configuration)} constructor.
 */
public class CrashingDynamoDbLogStore extends DynamoDbLogStore {

  private record Armed(String tablePrefix, CommitHook.Step step) {}

  private static final AtomicReference<Armed> ARMED = new AtomicReference<>();
  private static final AtomicReference<Path> CRASHED = new AtomicReference<>();

  public CrashingDynamoDbLogStore(Configuration hadoopConf) {
    super(hadoopConf, CrashingDynamoDbLogStore::maybeCrash);
  }

  private static void maybeCrash(CommitHook.Step step, Path deltaFile) {
    Armed armed = ARMED.get();
    if (armed != null
        && armed.step == step
        && deltaFile.toString().startsWith(armed.tablePrefix)
        && ARMED.compareAndSet(armed, null)) {
      CRASHED.set(deltaFile);
      throw new SimulatedCrash(step);
    }
  }

  /** The next commit to a table under {@code tablePath} dies right after {@code step}. */
  public static void crashOnceAfter(String tablePath, String step) {
    CRASHED.set(null);
    ARMED.set(new Armed(tablePath + "/", CommitHook.Step.valueOf(step)));
  }

  /** The Delta file whose commit crashed, or null while the crash has not happened. */
  public static Path crashed() {
    return CRASHED.get();
  }

  /**
   * The DynamoDB item of a Delta file: its {@code complete} and {@code tempPath} attributes, empty
   * if absent.
   */
  public static Map<String, String> entry(Dynalite ddb, String ddbTable, Path deltaFile) {
    try (DynamoDbClient client = LogStoreTestSupport.client(ddb)) {
      Map<String, AttributeValue> item =
          client
              .getItem(
                  b ->
                      b.tableName(ddbTable)
                          .consistentRead(true)
                          .key(
                              LogEntry.key(
                                  deltaFile.getParent().getParent().toString(),
                                  deltaFile.getName())))
              .item();
      if (item == null || item.isEmpty()) {
        return Map.of();
      }
      return Map.of(
          LogEntry.COMPLETE,
          item.get(LogEntry.COMPLETE).s(),
          LogEntry.TEMP_PATH,
          item.get(LogEntry.TEMP_PATH).s());
    }
  }
}
