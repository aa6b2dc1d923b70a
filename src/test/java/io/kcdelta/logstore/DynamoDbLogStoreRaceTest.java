package io.kcdelta.logstore;

import static io.kcdelta.logstore.LogStoreTestSupport.deltaFile;
import static io.kcdelta.logstore.LogStoreTestSupport.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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

      Map<Long, String> winnerOf = new ConcurrentHashMap<>();
      CyclicBarrier start = new CyclicBarrier(THREADS);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  DeltaLog log = DeltaLog.forTable(conf, tablePath);
                  start.await();
                  for (int i = 0; i < COMMITS_PER_THREAD; i++) {
                    String file = "t" + thread + "-" + i + ".parquet";
                    long version = LogStoreTestSupport.appendFile(log, file);
                    String previous = winnerOf.putIfAbsent(version, file);
                    assertNull(
                        previous,
                        "version "
                            + version
                            + " reported to two committers: "
                            + previous
                            + ", "
                            + file);
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(3, TimeUnit.MINUTES);
      }
      pool.shutdown();

      int total = THREADS * COMMITS_PER_THREAD;
      assertEquals(
          Set.copyOf(range(1, total)),
          new TreeMap<>(winnerOf).keySet(),
          "versions 1..N, contiguous");
      for (Map.Entry<Long, String> e : winnerOf.entrySet()) {
        assertTrue(
            read(conf, deltaFile(tablePath, e.getKey()))
                .contains("\"path\":\"" + e.getValue() + "\""),
            "version " + e.getKey() + " holds its winner's commit " + e.getValue());
      }
      Set<String> files =
          DeltaLog.forTable(conf, tablePath).update().getAllFiles().stream()
              .map(AddFile::getPath)
              .collect(Collectors.toSet());
      assertEquals(Set.copyOf(winnerOf.values()), files);

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

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long v = from; v <= to; v++) {
      out.add(v);
    }
    return out;
  }
}
