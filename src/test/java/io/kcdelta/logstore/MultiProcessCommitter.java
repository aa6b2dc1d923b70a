package io.kcdelta.logstore;

import io.delta.standalone.DeltaLog;
import io.kcdelta.it.infra.S3Proxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.hadoop.conf.Configuration;

/**
 * Child-JVM entry point of {@link DynamoDbLogStoreMultiProcessIT}: appends {@code commits} files to
 * one table through the store and appends {@code <version> <file>} per commit to {@code resultFile}
 * (stdout carries the logging), so the parent can check that every version still holds what its
 * writer wrote.
 *
 * <p>Args: s3Endpoint ddbEndpoint ddbTable tablePath writerId commits resultFile
 */
public final class MultiProcessCommitter {

  private MultiProcessCommitter() {}

  public static void main(String[] args) throws IOException {
    URI s3Endpoint = URI.create(args[0]);
    String ddbEndpoint = args[1];
    String ddbTable = args[2];
    String tablePath = args[3];
    String writer = args[4];
    int commits = Integer.parseInt(args[5]);
    Path resultFile = Path.of(args[6]);

    Configuration conf = new Configuration();
    S3Proxy.applyTo(conf, s3Endpoint);
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, ddbEndpoint);
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, ddbTable);

    DeltaLog log = DeltaLog.forTable(conf, tablePath);
    for (int i = 0; i < commits; i++) {
      String file = writer + "-" + i + ".parquet";
      long version = LogStoreTestSupport.appendFile(log, file);
      Files.writeString(
          resultFile,
          version + " " + file + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
    System.exit(0);
  }
}
