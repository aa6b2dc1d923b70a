package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Threads with separate DeltaLog instances race blind appends through the store in one JVM. */
class DynamoDbLogStoreRaceTest {

  private static final int THREADS = 8;
  private static final int COMMITS_PER_THREAD = 5;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyVersionHasExactlyOneWinnerAndNoCommitIsLost() throws Exception {
    try (Dynalite ddb = Dynalite.inMemory();
        S3Proxy s3 = S3Proxy.inMemory();
        DynamoDbClient client = LogStoreTestSupport.client(ddb)) {
      Configuration conf = LogStoreTestSupport.conf(s3, ddb, "delta_log_race");
      String tablePath = LogStoreTestSupport.uniqueTablePath(s3);
      LogStoreTestSupport.createDeltaTable(conf, tablePath);

      LogStoreTestSupport.raceAppendsAndCheckEachLandedOnce(
          conf, tablePath, THREADS, COMMITS_PER_THREAD);

      int total = THREADS * COMMITS_PER_THREAD;
      var items =
          client
              .query(
                  b ->
                      b.tableName("delta_log_race")
                          .consistentRead(true)
                          .keyConditionExpression("tablePath = :p")
                          .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(tablePath))))
              .items();
      assertEquals(total + 1, items.size());
      items.forEach(i -> assertEquals("true", i.get("complete").s(), i.get("fileName").s()));
    }
  }
}
