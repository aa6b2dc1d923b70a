package io.kcdelta.it.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.aws.IdentityScopedS3AFileSystem;
import io.kcdelta.aws.S3aCredentialsProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.model.AssumeRoleResponse;
import software.amazon.awssdk.services.sts.model.Credentials;

/**
 * The test STS and the signature-checking fronts answer as AWS does: signed requests with known,
 * valid keys pass; a wrong secret, an unknown key, a bad or expired token are refused with the
 * service's own error codes (as the AWS SDK parses them); the STS checks trust and external ids.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AwsTestServersTest {
  private AwsTestServers aws;
  private TestIam.Key user;
  private TestIam.Role role;

  @BeforeAll
  void start() throws IOException {
    aws = AwsTestServers.start();
    user = aws.iam.addUser("111111111111", "connect");
    role =
        new TestIam.Role(
            "arn:aws:iam::222222222222:role/writer",
            Set.of(user.principal().arn()),
            "ext-42",
            Duration.ofSeconds(3),
            Set.of("web-token-1"));
    aws.iam.addRole(role);
  }

  @AfterAll
  void stop() {
    if (aws != null) {
      aws.close();
    }
  }

  @Test
  void signaturesOfTheSdksSignerVerifyAndAChangedRequestDoesNot() {
    SdkHttpFullRequest unsigned =
        SdkHttpFullRequest.builder()
            .method(SdkHttpMethod.GET)
            .uri(URI.create("http://127.0.0.1:9/bucket/a%20key/with+plus"))
            .appendRawQueryParameter("prefix", "dir/sub dir/")
            .appendRawQueryParameter("list-type", "2")
            .appendRawQueryParameter("empty", "")
            .putHeader("X-Custom", "  two   spaces ")
            .build();
    for (String service : List.of("s3", "dynamodb")) {
      SignedRequest signed =
          AwsV4HttpSigner.create()
              .sign(
                  r ->
                      r.identity(
                              AwsCredentialsIdentity.create(
                                  user.accessKeyId(), user.secretAccessKey()))
                          .request(unsigned)
                          .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, service)
                          .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                          .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, !service.equals("s3"))
                          .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, !service.equals("s3")));
      SigV4.Request request = asReceived(signed);
      assertTrue(aws.iam.authenticate(request, service).ok(), service);
      SigV4.Request otherQuery =
          new SigV4.Request(
              request.method(),
              request.rawPath(),
              request.rawQuery().replace("list-type=2", "list-type=1"),
              request.headers(),
              null);
      assertEquals(
          TestIam.Refusal.SIGNATURE_MISMATCH, aws.iam.authenticate(otherQuery, service).refusal());
      assertEquals(
          TestIam.Refusal.WRONG_SCOPE,
          aws.iam.authenticate(request, service.equals("s3") ? "dynamodb" : "s3").refusal());
    }
  }

  @Test
  void dynamoDbThroughTheFrontTakesValidKeysOnlyAndAnswersInDynamoDbsShapes() throws Exception {
    try (DynamoDbClient ok =
        dynamo(AwsBasicCredentials.create(user.accessKeyId(), user.secretAccessKey()))) {
      ok.listTables();
    }
    assertEquals(
        "InvalidSignatureException",
        dynamoError(AwsBasicCredentials.create(user.accessKeyId(), "wrong-secret")));
    assertEquals(
        "UnrecognizedClientException",
        dynamoError(AwsBasicCredentials.create("AKIAUNKNOWN", user.secretAccessKey())));
    TestIam.Key session = aws.iam.issue(role, "s", Duration.ofMillis(1_500), "test");
    AwsSessionCredentials sessionCredentials =
        AwsSessionCredentials.create(
            session.accessKeyId(), session.secretAccessKey(), session.sessionToken());
    try (DynamoDbClient ok = dynamo(sessionCredentials)) {
      ok.listTables();
    }
    assertEquals(
        "UnrecognizedClientException",
        dynamoError(
            AwsSessionCredentials.create(
                session.accessKeyId(), session.secretAccessKey(), "other")));
    awaitExpiry(session);
    assertEquals("ExpiredTokenException", dynamoError(sessionCredentials));
    List<TestIam.Call> calls =
        aws.iam.calls(
            c -> c.service().equals("dynamodb") && session.accessKeyId().equals(c.accessKeyId()));
    assertEquals(3, calls.size(), calls.toString());
    assertEquals("ListTables", calls.get(0).operation());
    assertEquals(null, calls.get(0).errorCode());
    assertEquals(session.principal().arn(), calls.get(0).principalArn());
    assertEquals("ExpiredTokenException", calls.get(2).errorCode());
  }

  @Test
  void s3ThroughTheFrontTakesSessionKeysThatS3proxyAloneRefuses() throws Exception {
    String bucket = aws.s3.createBucket();
    TestIam.Key session = aws.iam.issue(role, "s3-session", Duration.ofSeconds(2), "test");
    Configuration conf =
        s3a(session.accessKeyId(), session.secretAccessKey(), session.sessionToken());
    Path file = new Path("s3a://" + bucket + "/t/_delta_log/00000000000000000000.json");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf)) {
      try (FSDataOutputStream out = fs.create(file, false)) {
        out.write("{}".getBytes(StandardCharsets.UTF_8));
      }
      assertEquals(2, fs.getFileStatus(file).getLen());
      assertEquals(1, fs.listStatus(file.getParent()).length);
      awaitExpiry(session);
      IOException expired = assertThrows(IOException.class, () -> fs.listStatus(file.getParent()));
      assertTrue(String.valueOf(expired).contains("ExpiredToken"), String.valueOf(expired));
    }
    Configuration wrong = s3a(user.accessKeyId(), "wrong-secret", null);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), wrong)) {
      IOException e = assertThrows(IOException.class, () -> fs.listStatus(file.getParent()));
      assertTrue(e instanceof AccessDeniedException, e.toString());
      assertTrue(e.toString().contains("SignatureDoesNotMatch"), e.toString());
    }
    List<TestIam.Call> byRole =
        aws.iam.calls(
            c -> c.service().equals("s3") && session.accessKeyId().equals(c.accessKeyId()));
    assertTrue(
        byRole.stream().anyMatch(c -> c.operation().equals("PutObject") && c.errorCode() == null),
        byRole.toString());
    assertTrue(
        byRole.stream()
            .anyMatch(
                c -> c.operation().equals("ListObjectsV2") && "ExpiredToken".equals(c.errorCode())),
        byRole.toString());
  }

  @Test
  void oneBucketTwoIdentitiesGetTwoS3aFileSystems() throws Exception {
    String bucket = aws.s3.createBucket();
    TestIam.Key other = aws.iam.addUser("333333333333", "other-connector");
    Path dir = new Path("s3a://" + bucket + "/shared/");
    List<String> signers = new ArrayList<>();
    for (TestIam.Key k : List.of(user, other, user)) {
      Configuration conf = s3a(k.accessKeyId(), k.secretAccessKey(), null);
      conf.set("fs.s3a.impl", IdentityScopedS3AFileSystem.class.getName());
      conf.setBoolean("fs.s3a.impl.disable.cache", true);
      aws.iam.clearCalls();
      FileSystem fs = dir.getFileSystem(conf);
      fs.mkdirs(dir);
      fs.listStatus(dir);
      signers.addAll(
          aws.iam.calls(c -> c.service().equals("s3")).stream()
              .map(TestIam.Call::accessKeyId)
              .distinct()
              .toList());
    }
    assertEquals(List.of(user.accessKeyId(), other.accessKeyId(), user.accessKeyId()), signers);
  }

  @Test
  void stsAssumesTrustedRolesWithTheirExternalIdAndTellsWhoIsCalling() {
    try (StsClient sts =
        sts(AwsBasicCredentials.create(user.accessKeyId(), user.secretAccessKey()))) {
      assertEquals(user.principal().arn(), sts.getCallerIdentity().arn());
      AssumeRoleResponse r =
          sts.assumeRole(
              b -> b.roleArn(role.arn()).roleSessionName("kcdelta-x").externalId("ext-42"));
      Credentials c = r.credentials();
      assertEquals(
          "arn:aws:sts::222222222222:assumed-role/writer/kcdelta-x", r.assumedRoleUser().arn());
      assertTrue(c.accessKeyId().startsWith("ASIA"));
      try (StsClient asRole =
          sts(
              AwsSessionCredentials.create(
                  c.accessKeyId(), c.secretAccessKey(), c.sessionToken()))) {
        assertEquals(r.assumedRoleUser().arn(), asRole.getCallerIdentity().arn());
      }
      AwsServiceException wrongId =
          assertThrows(
              AwsServiceException.class,
              () ->
                  sts.assumeRole(
                      b -> b.roleArn(role.arn()).roleSessionName("x1").externalId("ext-41")));
      assertEquals("AccessDenied", wrongId.awsErrorDetails().errorCode());
      assertEquals(403, wrongId.statusCode());
    }
    TestIam.Key stranger = aws.iam.addUser("444444444444", "stranger");
    try (StsClient sts =
        sts(AwsBasicCredentials.create(stranger.accessKeyId(), stranger.secretAccessKey()))) {
      AwsServiceException denied =
          assertThrows(
              AwsServiceException.class,
              () ->
                  sts.assumeRole(
                      b -> b.roleArn(role.arn()).roleSessionName("x2").externalId("ext-42")));
      assertTrue(denied.getMessage().contains(stranger.principal().arn()), denied.getMessage());
    }
    try (StsClient sts = sts(AwsBasicCredentials.create(user.accessKeyId(), "wrong"))) {
      AwsServiceException e = assertThrows(AwsServiceException.class, sts::getCallerIdentity);
      assertEquals("SignatureDoesNotMatch", e.awsErrorDetails().errorCode());
    }
    try (StsClient anonymous =
        StsClient.builder()
            .region(Region.US_EAST_1)
            .endpointOverride(aws.sts.endpoint())
            .credentialsProvider(
                software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider.create())
            .httpClientBuilder(ApacheHttpClient.builder())
            .build()) {
      Credentials c =
          anonymous
              .assumeRoleWithWebIdentity(
                  b -> b.roleArn(role.arn()).roleSessionName("pod").webIdentityToken("web-token-1"))
              .credentials();
      assertFalse(c.accessKeyId().isEmpty());
      assertThrows(
          AwsServiceException.class,
          () ->
              anonymous.assumeRoleWithWebIdentity(
                  b -> b.roleArn(role.arn()).roleSessionName("pod").webIdentityToken("forged")));
    }
  }

  private Configuration s3a(String accessKey, String secret, String token) {
    Configuration conf = new Configuration();
    S3Proxy.applyTo(conf, aws.s3Front.endpoint());
    conf.set("fs.s3a.aws.credentials.provider", S3aCredentialsProvider.class.getName());
    conf.set("fs.s3a.access.key", accessKey);
    conf.set("fs.s3a.secret.key", secret);
    if (token != null) {
      conf.set("fs.s3a.session.token", token);
    }
    // Fail fast: these tests expect refusals, not S3A's retries.
    conf.setInt("fs.s3a.retry.limit", 0);
    conf.setInt("fs.s3a.attempts.maximum", 1);
    return conf;
  }

  private DynamoDbClient dynamo(AwsCredentials c) {
    return DynamoDbClient.builder()
        .region(Region.US_EAST_1)
        .endpointOverride(aws.dynamoFront.endpoint())
        .credentialsProvider(StaticCredentialsProvider.create(c))
        .httpClientBuilder(ApacheHttpClient.builder())
        .overrideConfiguration(
            o ->
                o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()))
        .build();
  }

  private String dynamoError(AwsCredentials c) {
    try (DynamoDbClient client = dynamo(c)) {
      AwsServiceException e = assertThrows(AwsServiceException.class, client::listTables);
      return e.awsErrorDetails().errorCode();
    }
  }

  private StsClient sts(AwsCredentials c) {
    return StsClient.builder()
        .region(Region.US_EAST_1)
        .endpointOverride(aws.sts.endpoint())
        .credentialsProvider(StaticCredentialsProvider.create(c))
        .httpClientBuilder(ApacheHttpClient.builder())
        .build();
  }

  private static void awaitExpiry(TestIam.Key k) throws InterruptedException {
    long waitMs = Duration.between(java.time.Instant.now(), k.expiration()).toMillis() + 50;
    if (waitMs > 0) {
      Thread.sleep(waitMs);
    }
  }

  /** The request as a server would read it off the wire. */
  private static SigV4.Request asReceived(SignedRequest signed) {
    var r = signed.request();
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    r.forEachHeader(
        (name, values) -> values.forEach(v -> headers.add(new AbstractMap.SimpleEntry<>(name, v))));
    String host = r.host() + (r.port() == 80 ? "" : ":" + r.port());
    if (headers.stream().noneMatch(h -> h.getKey().equalsIgnoreCase("host"))) {
      headers.add(new AbstractMap.SimpleEntry<>("Host", host));
    }
    String uri = r.getUri().getRawPath();
    return new SigV4.Request(
        r.method().name(), uri, r.getUri().getRawQuery(), headers, new byte[0]);
  }
}
