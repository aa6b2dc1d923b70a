package io.kcdelta.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** Which provider a Hadoop configuration gets, and that S3A and DynamoDB share it. */
class AwsIdentitiesTest {

  /** Each test its own keys: identities are per JVM. */
  private final String keyId = "AKIA" + UUID.randomUUID().toString().substring(0, 8);

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, S3aCredentialsProvider.class.getName());
    return conf;
  }

  private Configuration withKeys() {
    Configuration conf = conf();
    conf.set(AwsIdentityKeys.ACCESS_KEY, keyId);
    conf.set(AwsIdentityKeys.SECRET_KEY, "very-secret");
    return conf;
  }

  @Test
  void staticKeysSignAsThemselvesAndS3AndDynamoDbShareTheProvider() {
    Configuration conf = withKeys();
    AwsIdentity s3 = AwsIdentities.forS3(conf);
    AwsIdentity dynamoDb = AwsIdentities.of(AwsIdentitySettings.forDynamoDb(conf, null));
    assertSame(s3, dynamoDb);
    assertInstanceOf(StaticCredentialsProvider.class, s3.provider());
    assertEquals(keyId, s3.provider().resolveCredentials().accessKeyId());
    AwsCredentials viaS3a =
        new S3aCredentialsProvider(URI.create("s3a://bucket/"), conf).resolveCredentials();
    assertEquals(keyId, viaS3a.accessKeyId());
    assertEquals("static keys, access key id " + keyId, s3.source());
    assertEquals(
        "S3 and DynamoDB act as static keys, access key id " + keyId,
        AwsIdentities.describeServices(conf, dynamoDb));
  }

  @Test
  void aSessionTokenMakesSessionCredentials() {
    Configuration conf = withKeys();
    conf.set(AwsIdentityKeys.SESSION_TOKEN, "the-token");
    AwsIdentity id = AwsIdentities.forS3(conf);
    AwsSessionCredentials c =
        assertInstanceOf(AwsSessionCredentials.class, id.provider().resolveCredentials());
    assertEquals("the-token", c.sessionToken());
    assertTrue(id.source().startsWith("temporary static keys"), id.source());
    assertFalse(id.toString().contains("the-token"));
    assertFalse(id.settings().toString().contains("the-token"));
    assertFalse(id.settings().toString().contains("very-secret"));
  }

  @Test
  void withoutKeysTheSdkDefaultChain() {
    Configuration conf = conf();
    conf.set(AwsIdentityKeys.STS_REGION, "eu-north-1-" + keyId.toLowerCase());
    AwsIdentity id = AwsIdentities.forS3(conf);
    assertInstanceOf(DefaultCredentialsProvider.class, id.provider());
    assertNull(id.settings().keys());
    assertTrue(id.source().startsWith("the AWS default credential chain ("), id.source());
  }

  @Test
  void aRoleIsAssumedOnTopOfTheBaseAndDynamoDbsRoleOnTopOfThat() {
    Configuration conf = withKeys();
    conf.set(AwsIdentityKeys.ROLE_ARN, "arn:aws:iam::111111111111:role/connector");
    conf.set(AwsIdentityKeys.ROLE_EXTERNAL_ID, "ext-secretish");
    conf.set(AwsIdentityKeys.ROLE_SESSION_NAME, "kcdelta-orders");
    AwsIdentity s3 = AwsIdentities.forS3(conf);
    assertInstanceOf(RefreshingCredentials.class, s3.provider());
    assertEquals(
        "role arn:aws:iam::111111111111:role/connector assumed with an external id from static keys, access key id "
            + keyId,
        s3.source());
    assertSame(s3, AwsIdentities.of(AwsIdentitySettings.forDynamoDb(conf, null)));
    assertFalse(s3.settings().toString().contains("ext-secretish"));

    conf.set(AwsIdentityKeys.DYNAMODB_ROLE_ARN, "arn:aws:iam::222222222222:role/delta-log");
    AwsIdentity dynamoDb = AwsIdentities.of(AwsIdentitySettings.forDynamoDb(conf, null));
    assertNotSame(s3, dynamoDb);
    assertSame(s3, AwsIdentities.forS3(conf), "S3 keeps the connector's role");
    assertEquals(2, dynamoDb.settings().roles().size());
    assertEquals(s3.settings(), dynamoDb.settings().base());
    assertTrue(
        dynamoDb
            .source()
            .startsWith(
                "role arn:aws:iam::222222222222:role/delta-log assumed from role arn:aws:iam::111111111111:role/connector"),
        dynamoDb.source());
    assertEquals(
        "S3 acts as " + s3.source() + "; DynamoDB acts as " + dynamoDb.source(),
        AwsIdentities.describeServices(conf, dynamoDb));
  }

  @Test
  void anS3aProviderOverrideIsToldAsSuch() {
    Configuration conf = withKeys();
    conf.set(
        AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER,
        "software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider");
    AwsIdentity dynamoDb = AwsIdentities.of(AwsIdentitySettings.forDynamoDb(conf, null));
    String line = AwsIdentities.describeServices(conf, dynamoDb);
    assertTrue(
        line.startsWith(
            "S3 uses the credentials providers of fs.s3a.aws.credentials.provider=software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider"),
        line);
    assertTrue(line.endsWith("; DynamoDB acts as static keys, access key id " + keyId), line);
  }

  @Test
  void theLogStoresOwnKeysWinForDynamoDb() {
    Configuration conf = withKeys();
    AwsIdentitySettings.StaticKeys own =
        new AwsIdentitySettings.StaticKeys("AKIAOWN" + keyId, "own-secret", null);
    AwsIdentity dynamoDb = AwsIdentities.of(AwsIdentitySettings.forDynamoDb(conf, own));
    assertEquals("AKIAOWN" + keyId, dynamoDb.provider().resolveCredentials().accessKeyId());
    assertNotSame(AwsIdentities.forS3(conf), dynamoDb);
  }

  @Test
  void halfAKeyPairIsRefused() {
    Configuration conf = conf();
    conf.set(AwsIdentityKeys.ACCESS_KEY, keyId);
    assertThrows(IllegalArgumentException.class, () -> AwsIdentities.forS3(conf));
  }
}
