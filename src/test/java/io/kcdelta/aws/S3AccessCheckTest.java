package io.kcdelta.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.it.infra.AwsTestServers;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.it.infra.TestIam;
import io.kcdelta.retry.Transience;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The S3 preflight against the signature-checking front: it passes with good keys, and a wrong
 * secret, an expired token, a denied permission or a role STS will not hand out fail it with a
 * message that says the service, operation, bucket, prefix, identity and what to check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3AccessCheckTest {
  private AwsTestServers aws;
  private TestIam.Key user;

  @BeforeAll
  void start() throws IOException {
    aws = AwsTestServers.start();
    user = aws.iam.addUser("111111111111", "preflight");
  }

  @AfterAll
  void stop() {
    if (aws != null) {
      aws.close();
    }
  }

  private Configuration conf(String accessKey, String secret, String token) {
    Configuration conf = new Configuration();
    S3Proxy.applyTo(conf, aws.s3Front.endpoint());
    conf.set("fs.s3a.impl", IdentityScopedS3AFileSystem.class.getName());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, S3aCredentialsProvider.class.getName());
    conf.set(AwsIdentityKeys.ACCESS_KEY, accessKey);
    conf.set(AwsIdentityKeys.SECRET_KEY, secret);
    if (token != null) {
      conf.set(AwsIdentityKeys.SESSION_TOKEN, token);
    }
    conf.set(AwsIdentityKeys.STS_ENDPOINT, aws.sts.endpoint().toString());
    conf.setInt("fs.s3a.retry.limit", 0);
    return conf;
  }

  private String table(String bucket) {
    return "s3a://" + bucket + "/warehouse/orders";
  }

  @Test
  void goodKeysListTheLogAndReadAFile() throws Exception {
    String bucket = aws.s3.createBucket();
    Configuration conf = conf(user.accessKeyId(), user.secretAccessKey(), null);
    Path log = new Path(table(bucket) + "/_delta_log/00000000000000000000.json");
    try (FSDataOutputStream out = log.getFileSystem(conf).create(log, false)) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    aws.iam.clearCalls();
    new S3AccessCheck(conf).check(table(bucket));
    List<String> ops =
        aws.iam.calls(c -> c.service().equals("s3")).stream().map(TestIam.Call::operation).toList();
    assertEquals(List.of("ListObjectsV2", "GetObject"), ops);
    assertTrue(aws.iam.calls(c -> c.errorCode() != null).isEmpty());
  }

  @Test
  void aWrongSecretNamesS3TheOperationTheBucketThePrefixAndTheKey() {
    String bucket = aws.s3.createBucket();
    Configuration conf = conf(user.accessKeyId(), "not-the-secret", null);
    AwsAccessException e = refused(conf, table(bucket));
    String m = e.getMessage();
    assertTrue(
        m.startsWith(
            "S3 refused ListObjectsV2 (s3:ListBucket) of 'warehouse/orders/_delta_log/' on bucket '"
                + bucket
                + "', prefix 'warehouse/orders/' to static keys, access key id "
                + user.accessKeyId()
                + ": SignatureDoesNotMatch"),
        m);
    assertTrue(m.contains("the secret key (aws.secret.access.key) is not the one"), m);
    assertFalse(m.contains("not-the-secret"), m);
    assertFalse(Transience.isTransient(e));
  }

  @Test
  void anExpiredSessionTokenSaysItIsNeverRenewed() throws Exception {
    TestIam.Role role =
        new TestIam.Role(
            "arn:aws:iam::111111111111:role/short",
            Set.of(),
            null,
            Duration.ofMillis(200),
            Set.of());
    aws.iam.addRole(role);
    TestIam.Key session = aws.iam.issue(role, "s", Duration.ofMillis(200), "test");
    Thread.sleep(300);
    String bucket = aws.s3.createBucket();
    String m =
        refused(
                conf(session.accessKeyId(), session.secretAccessKey(), session.sessionToken()),
                table(bucket))
            .getMessage();
    assertTrue(m.contains("S3 refused ListObjectsV2"), m);
    assertTrue(m.contains("ExpiredToken"), m);
    assertTrue(m.contains("temporary static keys are never renewed"), m);
    assertFalse(m.contains(session.sessionToken()), m);
  }

  @Test
  void aDeniedListingNamesTheIamActions() {
    TestIam.Key limited = aws.iam.addUser("111111111111", "no-list");
    aws.iam.deny("s3", "ListObjectsV2", limited.principal().arn());
    String bucket = aws.s3.createBucket();
    String m =
        refused(conf(limited.accessKeyId(), limited.secretAccessKey(), null), table(bucket))
            .getMessage();
    assertTrue(m.contains("AccessDenied"), m);
    assertTrue(
        m.contains(
            "s3:ListBucket on arn:aws:s3:::"
                + bucket
                + " (for the prefix 'warehouse/orders/'), and s3:GetObject, s3:PutObject,"
                + " s3:DeleteObject, s3:AbortMultipartUpload on arn:aws:s3:::"
                + bucket
                + "/warehouse/orders/*"),
        m);
  }

  @Test
  void aRoleStsRefusesNamesTheRoleAndTheTrustPolicy() {
    aws.iam.addRole(
        new TestIam.Role(
            "arn:aws:iam::222222222222:role/not-for-you",
            Set.of("arn:aws:iam::222222222222:user/someone-else"),
            null,
            Duration.ofMinutes(5),
            Set.of()));
    Configuration conf = conf(user.accessKeyId(), user.secretAccessKey(), null);
    conf.set(AwsIdentityKeys.ROLE_ARN, "arn:aws:iam::222222222222:role/not-for-you");
    conf.set(AwsIdentityKeys.ROLE_SESSION_NAME, "kcdelta-test");
    String m = refused(conf, table(aws.s3.createBucket())).getMessage();
    assertTrue(m.startsWith("No credentials for S3 (ListObjectsV2"), m);
    assertTrue(
        m.contains(
            "STS AssumeRole of arn:aws:iam::222222222222:role/not-for-you (session kcdelta-test,"
                + " no external id) for static keys, access key id "
                + user.accessKeyId()
                + " was refused: AccessDenied"),
        m);
    assertTrue(m.contains("trust policy of arn:aws:iam::222222222222:role/not-for-you"), m);
  }

  private static AwsAccessException refused(Configuration conf, String table) {
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> new S3AccessCheck(conf).check(table));
    AwsAccessException refused = assertInstanceOf(AwsAccessException.class, e.getCause());
    System.out.println("[preflight] " + refused.getMessage());
    return refused;
  }
}
