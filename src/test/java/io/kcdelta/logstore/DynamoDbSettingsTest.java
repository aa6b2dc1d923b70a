package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * How the store reads the Hadoop configuration: Delta's names and defaults, our keys, fallbacks.
 */
class DynamoDbSettingsTest {

  @Test
  void deltaDefaults() {
    DynamoDbSettings s = DynamoDbSettings.from(new Configuration(false));
    assertEquals("delta_log", s.tableName());
    assertEquals("us-east-1", s.region());
    assertEquals(86_400L, s.ttlSeconds());
    assertNull(s.endpoint());
    assertTrue(s.autoCreate());
    assertNull(s.identity().keys(), "default credential chain");
    assertTrue(s.identity().roles().isEmpty());
    assertEquals(8, s.maxAttempts());
  }

  @Test
  void deltaKeyNamesAreHonoured() {
    Configuration conf = new Configuration(false);
    conf.set("io.delta.storage.S3DynamoDBLogStore.ddb.tableName", "shared_log");
    conf.set("io.delta.storage.S3DynamoDBLogStore.ddb.region", "eu-west-1");
    conf.set("io.delta.storage.S3DynamoDBLogStore.ddb.ttl", "3600");
    DynamoDbSettings s = DynamoDbSettings.from(conf);
    assertEquals("shared_log", s.tableName());
    assertEquals("eu-west-1", s.region());
    assertEquals(3600L, s.ttlSeconds());
  }

  @Test
  void sparkPrefixedDeltaKeysAreHonoured() {
    Configuration conf = new Configuration(false);
    conf.set("spark.io.delta.storage.S3DynamoDBLogStore.ddb.tableName", "spark_log");
    conf.set("spark.io.delta.storage.S3DynamoDBLogStore.ddb.ttl", "1d");
    DynamoDbSettings s = DynamoDbSettings.from(conf);
    assertEquals("spark_log", s.tableName());
    assertEquals(86_400L, s.ttlSeconds());
  }

  @Test
  void regionFallsBackToTheS3aRegion() {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.endpoint.region", "ap-south-1");
    assertEquals("ap-south-1", DynamoDbSettings.from(conf).region());
  }

  @Test
  void ownCredentialsWinOverS3aOnesWhichWinOverTheDefaultChain() {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.access.key", "s3a-id");
    conf.set("fs.s3a.secret.key", "s3a-secret");
    assertEquals("s3a-id", DynamoDbSettings.from(conf).identity().keys().accessKeyId());
    conf.set(DynamoDbLogStoreKeys.ACCESS_KEY, "ddb-id");
    conf.set(DynamoDbLogStoreKeys.SECRET_KEY, "ddb-secret");
    assertEquals("ddb-secret", DynamoDbSettings.from(conf).identity().keys().secretAccessKey());
  }

  @Test
  void halfACredentialPairIsRejected() {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ACCESS_KEY, "id-only");
    assertThrows(IllegalArgumentException.class, () -> DynamoDbSettings.from(conf));
  }

  @Test
  void secretsNeverAppearInToString() {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ACCESS_KEY, "AKIDEXAMPLE");
    conf.set(DynamoDbLogStoreKeys.SECRET_KEY, "wJalrXUtnFEMI-super-secret");
    DynamoDbSettings s = DynamoDbSettings.from(conf);
    assertFalse(s.toString().contains("super-secret"), s.toString());
    assertFalse(s.describeService().contains("super-secret"));
  }

  @Test
  void endpointAndBudgetAreValidated() {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "127.0.0.1:4567");
    assertThrows(IllegalArgumentException.class, () -> DynamoDbSettings.from(conf));
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:4567");
    conf.setInt(DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS, 0);
    assertThrows(IllegalArgumentException.class, () -> DynamoDbSettings.from(conf));
    conf.setInt(DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS, 2);
    assertEquals("http://127.0.0.1:4567/us-east-1", DynamoDbSettings.from(conf).describeService());
  }
}
