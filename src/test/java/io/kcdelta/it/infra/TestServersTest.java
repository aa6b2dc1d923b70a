package io.kcdelta.it.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The servers other tests rely on: loopback endpoints, and data that survives stop()+start() on
 * disk.
 */
class TestServersTest {

  @TempDir Path dir;

  @Test
  void dynaliteOnDiskKeepsDataAndPortAcrossRestart() {
    try (Dynalite ddb = Dynalite.onDisk(dir.resolve("ddb"))) {
      int port = ddb.port();
      assertTrue(port > 0);
      assertEquals("http://127.0.0.1:" + port, ddb.endpoint().toString());
      try (DynamoDbClient client = client(ddb)) {
        client.createTable(
            b ->
                b.tableName("things")
                    .keySchema(k -> k.attributeName("k").keyType(KeyType.HASH))
                    .attributeDefinitions(
                        a -> a.attributeName("k").attributeType(ScalarAttributeType.S))
                    .billingMode("PAY_PER_REQUEST"));
        // dynalite makes the table ACTIVE a moment after CreateTable answers (on disk, seen as a
        // ResourceNotFound on the PutItem right after it in one CI run).
        client.waiter().waitUntilTableExists(b -> b.tableName("things"));
        client.putItem(b -> b.tableName("things").item(Map.of("k", AttributeValue.fromS("v"))));
      }
      ddb.stop();
      assertFalse(ddb.isRunning());
      ddb.start();
      assertEquals(port, ddb.port());
      try (DynamoDbClient client = client(ddb)) {
        var item =
            client
                .getItem(
                    b ->
                        b.tableName("things")
                            .key(Map.of("k", AttributeValue.fromS("v")))
                            .consistentRead(true))
                .item();
        assertEquals("v", item.get("k").s());
      }
    }
  }

  @Test
  void s3ProxyOnDiskServesS3aAndKeepsObjectsAcrossRestart() throws Exception {
    try (S3Proxy s3 = S3Proxy.onDisk(dir.resolve("s3"))) {
      int port = s3.port();
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(s3.uri("a/b.txt"));
      FileSystem fs = file.getFileSystem(s3.hadoopConf());
      try (FSDataOutputStream out = fs.create(file, false)) {
        out.write("hello".getBytes(StandardCharsets.UTF_8));
      }
      s3.stop();
      s3.start();
      assertEquals(port, s3.port());
      try (var in = fs.open(file)) {
        assertEquals("hello", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
      assertEquals(1, fs.listStatus(file.getParent()).length);
    }
  }

  private static DynamoDbClient client(Dynalite ddb) {
    return DynamoDbClient.builder()
        .endpointOverride(ddb.endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "y")))
        .httpClientBuilder(ApacheHttpClient.builder())
        .build();
  }
}
