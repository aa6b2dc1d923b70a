package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Shared set-up of the log store tests: configuration against the test servers, Delta helpers. */
final class LogStoreTestSupport {

  static final String ENGINE = "kcdelta-logstore-test";

  private LogStoreTestSupport() {}

  /**
   * s3a against {@code s3}, our store for s3a://, DynamoDB at {@code ddb}, log table {@code
   * ddbTable}.
   */
  static Configuration conf(S3Proxy s3, Dynalite ddb, String ddbTable) {
    Configuration conf = s3.hadoopConf();
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, ddb.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.REGION, "us-east-1");
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, ddbTable);
    return conf;
  }

  static String uniqueTablePath(S3Proxy s3) {
    return s3.uri("tables/t-" + UUID.randomUUID().toString().substring(0, 8));
  }

  static DynamoDbClient client(Dynalite ddb) {
    return DynamoDbClient.builder()
        .endpointOverride(ddb.endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "y")))
        .httpClientBuilder(ApacheHttpClient.builder())
        .build();
  }

  static Map<String, AttributeValue> item(
      DynamoDbClient client, String ddbTable, String tablePath, long version) {
    return client
        .getItem(
            b ->
                b.tableName(ddbTable)
                    .consistentRead(true)
                    .key(LogEntry.key(tablePath, DynamoDbLogStore.deltaFileName(version))))
        .item();
  }

  /** Version 0: a one-column schema. */
  static void createDeltaTable(Configuration conf, String tablePath) {
    DeltaLog log = DeltaLog.forTable(conf, tablePath);
    OptimisticTransaction txn = log.startTransaction();
    txn.updateMetadata(
        Metadata.builder()
            .schema(new StructType(new StructField[] {new StructField("id", new LongType(), true)}))
            .build());
    txn.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), ENGINE);
  }

  /** A blind append of one (fictitious) data file; returns the version it landed at. */
  static long appendFile(DeltaLog log, String fileName) {
    OptimisticTransaction txn = log.startTransaction();
    AddFile add =
        new AddFile(fileName, Map.of(), 100, System.currentTimeMillis(), true, null, null);
    CommitResult result = txn.commit(List.of(add), new Operation(Operation.Name.WRITE), ENGINE);
    return result.getVersion();
  }

  /** The JSON line of an add action, as a hand-written commit file would hold it. */
  static String addLine(String fileName) {
    return "{\"add\":{\"path\":\""
        + fileName
        + "\",\"partitionValues\":{},\"size\":100,"
        + "\"modificationTime\":1,\"dataChange\":true}}";
  }

  static Path deltaFile(String tablePath, long version) {
    return new Path(tablePath + "/_delta_log/" + DynamoDbLogStore.deltaFileName(version));
  }

  static String read(Configuration conf, Path file) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * {@code threads} committers, each with a DeltaLog of its own (as separate workers have), append
   * {@code commits} files each at once; then checks that every commit landed in a version of its
   * own: versions 1..N contiguous, each holding its committer's file, and the table holding all.
   *
   * @return version → file of the commit that landed there
   */
  static Map<Long, String> raceAppendsAndCheckEachLandedOnce(
      Configuration conf, String tablePath, int threads, int commits) throws Exception {
    Map<Long, String> winnerOf = new ConcurrentHashMap<>();
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                DeltaLog log = DeltaLog.forTable(conf, tablePath);
                start.await();
                for (int i = 0; i < commits; i++) {
                  String file = "t" + thread + "-" + i + ".parquet";
                  long version = appendFile(log, file);
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
    try {
      for (Future<?> f : futures) {
        f.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(
        LongStream.rangeClosed(1, (long) threads * commits).boxed().toList(),
        List.copyOf(new TreeMap<>(winnerOf).keySet()),
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
    return winnerOf;
  }
}
