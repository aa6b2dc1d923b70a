package io.kcdelta.logstore;

import io.delta.standalone.DeltaLog;
import io.kcdelta.it.infra.S3Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;

/**
 * Child-JVM entry point of {@link LogStoreMultiProcessIT}: appends {@code commits} files to one
 * table through the store and appends {@code <version> <file>} per commit to {@code resultFile}
 * (stdout carries the logging), so the parent can check that every version still holds what its
 * writer wrote.
 *
 * <p>Args: s3Endpoint ddbEndpoint ddbTable tablePath writerId commits resultFile [storeClass
 * [threads]]: with threads, each thread commits {@code commits} files through a DeltaLog of its
 * own.
 */
public final class MultiProcessCommitter {

  private MultiProcessCommitter() {}

  public static void main(String[] args) throws Exception {
    URI s3Endpoint = URI.create(args[0]);
    String ddbEndpoint = args[1];
    String ddbTable = args[2];
    String tablePath = args[3];
    String writer = args[4];
    int commits = Integer.parseInt(args[5]);
    Path resultFile = Path.of(args[6]);
    String store = args.length > 7 ? args[7] : DynamoDbLogStore.class.getName();
    int threads = args.length > 8 ? Integer.parseInt(args[8]) : 1;

    Configuration conf = new Configuration();
    S3Proxy.applyTo(conf, s3Endpoint);
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, store);
    conf.setBoolean(S3ConditionalLogStore.S3A_CONDITIONAL_ENABLED, true);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, ddbEndpoint);
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, ddbTable);

    List<Thread> running = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      String id = threads == 1 ? writer : writer + "t" + t;
      Thread thread =
          new Thread(
              () -> {
                try {
                  DeltaLog log = DeltaLog.forTable(conf, tablePath);
                  for (int i = 0; i < commits; i++) {
                    String file = id + "-" + i + ".parquet";
                    long version = LogStoreTestSupport.appendFile(log, file);
                    synchronized (MultiProcessCommitter.class) {
                      Files.writeString(
                          resultFile,
                          version + " " + file + "\n",
                          StandardOpenOption.CREATE,
                          StandardOpenOption.APPEND);
                    }
                  }
                } catch (Throwable e) {
                  e.printStackTrace();
                  failures.add(e);
                }
              });
      thread.start();
      running.add(thread);
    }
    for (Thread t : running) {
      t.join();
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }
}
