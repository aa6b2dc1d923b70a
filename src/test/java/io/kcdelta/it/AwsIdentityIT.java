package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kcdelta.aws.IdentityScopedS3AFileSystem;
import io.kcdelta.it.infra.AwsTestServers;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.it.infra.TestIam;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36 on embedded Connect: who S3 and DynamoDB act as, read from the calls that the test STS
 * and the signature-checking fronts (before s3proxy and dynalite) recorded; and what a task says
 * when its credentials are refused. Each scenario has its own topic, bucket and DynamoDB table; the
 * test reads the tables past the fronts, so only the connector's calls are recorded.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AwsIdentityIT {
  private static final String WORKERS_ACCOUNT = "111111111111";
  private static final String DATA_ACCOUNT = "222222222222";
  private static final String LOG_ACCOUNT = "333333333333";
  private static final String WRITER_ROLE = "arn:aws:iam::" + DATA_ACCOUNT + ":role/orders-writer";
  private static final String SHORT_ROLE = "arn:aws:iam::" + DATA_ACCOUNT + ":role/short-sessions";
  private static final String LOG_ROLE = "arn:aws:iam::" + LOG_ACCOUNT + ":role/delta-log";
  private static final String IRSA_ROLE = "arn:aws:iam::" + WORKERS_ACCOUNT + ":role/connect-irsa";
  private static final String OTHER_ROLE = "arn:aws:iam::444444444444:role/other-team";
  private static final String EXTERNAL_ID = "orders-7f3a";
  private static final String IRSA_TOKEN = "eyJhbGciOiJSUzI1NiJ9.irsa-test-token.sig";

  private AwsTestServers aws;
  private EmbeddedConnectCluster connect;
  private TestIam.Key workers;
  private LogCapture log;

  @TempDir Path dir;

  /** One scenario's names. */
  private record Scenario(
      String name, String topic, String bucket, String dynamoDbTable, Instant started) {
    String table() {
      return "s3a://" + bucket + "/warehouse/" + topic;
    }
  }

  @BeforeAll
  void start() throws Exception {
    aws = AwsTestServers.start();
    workers = aws.iam.addUser(WORKERS_ACCOUNT, "connect-workers");
    String workersArn = workers.principal().arn();
    aws.iam.addRole(
        new TestIam.Role(
            WRITER_ROLE, Set.of(workersArn), EXTERNAL_ID, Duration.ofHours(1), Set.of()));
    aws.iam.addRole(
        new TestIam.Role(SHORT_ROLE, Set.of(workersArn), null, Duration.ofSeconds(20), Set.of()));
    aws.iam.addRole(
        new TestIam.Role(LOG_ROLE, Set.of(WRITER_ROLE), null, Duration.ofHours(1), Set.of()));
    aws.iam.addRole(
        new TestIam.Role(IRSA_ROLE, Set.of(), null, Duration.ofHours(1), Set.of(IRSA_TOKEN)));
    aws.iam.addRole(
        new TestIam.Role(
            OTHER_ROLE,
            Set.of("arn:aws:iam::444444444444:user/someone-else"),
            null,
            Duration.ofHours(1),
            Set.of()));
    log = LogCapture.begin();
    connect = ConnectCluster.start(getClass().getSimpleName(), 1);
  }

  @AfterAll
  void stop() {
    if (connect != null) {
      connect.stop();
    }
    if (log != null) {
      log.close();
    }
    if (aws != null) {
      aws.close();
    }
  }

  // ------------------------------------------------------------------ identities

  @Test
  void irsaStyleWorkersActAsThePodsRoleForS3AndDynamoDb() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, IRSA_TOKEN, StandardCharsets.UTF_8);
    // What EKS puts in a pod's environment, as the Java system properties the AWS SDK reads
    // first (the workers share this JVM).
    Map<String, String> irsa =
        Map.of(
            "aws.webIdentityTokenFile",
            token.toString(),
            "aws.roleArn",
            IRSA_ROLE,
            "aws.roleSessionName",
            "connect-pod-0",
            "aws.region",
            S3Proxy.REGION,
            "aws.endpointUrlSts",
            aws.sts.endpoint().toString());
    irsa.forEach(System::setProperty);
    try {
      Scenario s = scenario("irsa");
      Map<String, String> config = config(s);
      String assumed =
          "arn:aws:sts::" + WORKERS_ACCOUNT + ":assumed-role/connect-irsa/connect-pod-0";
      runAndVerify(s, config, 2_000);
      assertEverySigned(s, assumed, "AssumeRoleWithWebIdentity");
      assertFalse(
          aws.iam
              .calls(
                  c -> c.operation().equals("AssumeRoleWithWebIdentity") && c.errorCode() == null)
              .isEmpty());
      assertLogged(
          s,
          "S3 and DynamoDB act as "
              + assumed
              + " (the AWS default credential chain (web identity token file, IRSA: role "
              + IRSA_ROLE
              + "))");
      report(s);
    } finally {
      irsa.keySet().forEach(System::clearProperty);
    }
  }

  @Test
  void anAssumedRoleWithAnExternalIdSignsEveryS3AndDynamoDbRequest() throws Exception {
    Scenario s = scenario("assumed");
    Map<String, String> config = config(s);
    config.putAll(workerKeys());
    config.put("aws.assume.role.arn", WRITER_ROLE);
    config.put("aws.assume.role.external.id", EXTERNAL_ID);
    String assumed =
        "arn:aws:sts::" + DATA_ACCOUNT + ":assumed-role/orders-writer/kcdelta-" + s.name();
    runAndVerify(s, config, 2_000);
    assertEverySigned(s, assumed, "AssumeRole");
    List<TestIam.Call> assumes = stsCalls(s, WRITER_ROLE);
    assertFalse(assumes.isEmpty());
    for (TestIam.Call c : assumes) {
      assertEquals(workers.accessKeyId(), c.accessKeyId(), "assumed from the base keys");
      assertEquals(EXTERNAL_ID, c.details().get("ExternalId"));
      assertEquals(null, c.errorCode());
    }
    assertLogged(
        s,
        "S3 and DynamoDB act as "
            + assumed
            + " (role "
            + WRITER_ROLE
            + " assumed with an external id from "
            + workers.principal().arn());
    report(s);
  }

  @Test
  void aCoordinationTableInAnotherAccountIsReachedThroughItsOwnRole() throws Exception {
    Scenario s = scenario("crossaccount");
    Map<String, String> config = config(s);
    config.putAll(workerKeys());
    config.put("aws.assume.role.arn", WRITER_ROLE);
    config.put("aws.assume.role.external.id", EXTERNAL_ID);
    config.put("dynamodb.assume.role.arn", LOG_ROLE);
    String s3As =
        "arn:aws:sts::" + DATA_ACCOUNT + ":assumed-role/orders-writer/kcdelta-" + s.name();
    String dynamoDbAs =
        "arn:aws:sts::" + LOG_ACCOUNT + ":assumed-role/delta-log/kcdelta-" + s.name();
    runAndVerify(s, config, 1_000);
    assertSigned(s3Calls(s), s3As, "S3");
    assertSigned(dynamoDbCalls(s), dynamoDbAs, "DynamoDB");
    List<TestIam.Call> chained = stsCalls(s, LOG_ROLE);
    assertFalse(chained.isEmpty());
    for (TestIam.Call c : chained) {
      assertEquals(s3As, c.principalArn(), "the log role is assumed from the connector's role");
    }
    assertLogged(s, "S3 acts as " + s3As);
    assertLogged(s, "; DynamoDB acts as " + dynamoDbAs);
    report(s);
  }

  @Test
  @Tag("heavy")
  void sessionsOfTwentySecondsAreRenewedUnderNinetySecondsOfLoad() throws Exception {
    Scenario s = scenario("renewed");
    Map<String, String> config = config(s);
    config.putAll(workerKeys());
    config.put("aws.assume.role.arn", SHORT_ROLE);
    String name = s.name();
    ConnectCluster.runConnector(connect, name, config, 2);
    OrderRecords records = new OrderRecords();
    long start = System.nanoTime();
    int produced = 0;
    List<String> failures = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      while (System.nanoTime() - start < 90_000_000_000L) {
        records.produce(producer, s.topic(), 2, produced, produced + 50);
        produced += 50;
        failedTasks(name).forEach(t -> failures.add(t.id() + ": " + t.trace()));
        Thread.sleep(500);
      }
    }
    assertTrue(failures.isEmpty(), "tasks failed under load: " + failures);
    awaitTxnVersions(s, records, 120_000);
    assertExactlyOnce(s, produced);
    assertTrue(failedTasks(name).isEmpty(), "no task failed");
    List<TestIam.Call> assumes = stsCalls(s, SHORT_ROLE);
    assertTrue(
        assumes.size() >= 4,
        "several AssumeRole calls in 90 s of 20 s sessions: " + assumes.size());
    String assumed =
        "arn:aws:sts::" + DATA_ACCOUNT + ":assumed-role/short-sessions/kcdelta-" + name;
    assertEverySigned(s, assumed, "AssumeRole");
    long s3Keys = s3Calls(s).stream().map(TestIam.Call::accessKeyId).distinct().count();
    long dynamoDbKeys = dynamoDbCalls(s).stream().map(TestIam.Call::accessKeyId).distinct().count();
    assertTrue(s3Keys >= 3, "S3 signed with renewed sessions: " + s3Keys + " keys");
    assertTrue(
        dynamoDbKeys >= 3, "DynamoDB signed with renewed sessions: " + dynamoDbKeys + " keys");
    System.out.printf(
        "[aws-it] %s: %d records in %.0f s, %d AssumeRole calls, %d session keys used by S3, %d by DynamoDB%n",
        name, produced, (System.nanoTime() - start) / 1e9, assumes.size(), s3Keys, dynamoDbKeys);
    report(s);
    connect.deleteConnector(name);
  }

  // ------------------------------------------------------------------ refusals

  @Test
  void aWrongSecretFailsTheTaskWithinThirtySecondsNamingS3TheOperationAndTheTable()
      throws Exception {
    Scenario s = scenario("wrongsecret");
    Map<String, String> config = config(s);
    config.put("aws.access.key.id", workers.accessKeyId());
    config.put("aws.secret.access.key", "not-the-secret-of-" + workers.accessKeyId());
    String trace = awaitFailed(s, config);
    assertTrue(trace.contains("S3 refused ListObjectsV2 (s3:ListBucket)"), trace);
    assertTrue(
        trace.contains("on bucket '" + s.bucket() + "', prefix 'warehouse/" + s.topic() + "/'"),
        trace);
    assertTrue(trace.contains("SignatureDoesNotMatch"), trace);
    assertTrue(trace.contains("access key id " + workers.accessKeyId()), trace);
    assertFalse(trace.contains("not-the-secret-of"), "no secret in the trace");
    assertTrue(
        s3Calls(s).stream().allMatch(c -> "SignatureDoesNotMatch".equals(c.errorCode())),
        s3Calls(s).toString());
    report(s);
  }

  @Test
  void anExpiredSessionTokenFailsTheTaskWithinThirtySeconds() throws Exception {
    Scenario s = scenario("expired");
    TestIam.Key session =
        aws.iam.issue(aws.iam.role(WRITER_ROLE), "handed-out", Duration.ofMillis(500), "test");
    Thread.sleep(Duration.between(Instant.now(), session.expiration()).toMillis() + 100);
    Map<String, String> config = config(s);
    config.put("aws.access.key.id", session.accessKeyId());
    config.put("aws.secret.access.key", session.secretAccessKey());
    config.put("aws.session.token", session.sessionToken());
    String trace = awaitFailed(s, config);
    assertTrue(trace.contains("S3 refused ListObjectsV2 (s3:ListBucket)"), trace);
    assertTrue(trace.contains("on bucket '" + s.bucket() + "'"), trace);
    assertTrue(trace.contains("ExpiredToken"), trace);
    assertTrue(trace.contains("temporary static keys are never renewed"), trace);
    assertFalse(trace.contains(session.sessionToken()), "no token in the trace");
    assertFalse(trace.contains(session.secretAccessKey()), "no secret in the trace");
    report(s);
  }

  @Test
  void aRoleStsWillNotHandOutFailsTheTaskNamingTheRole() throws Exception {
    Scenario s = scenario("refusedrole");
    Map<String, String> config = config(s);
    config.putAll(workerKeys());
    config.put("aws.assume.role.arn", OTHER_ROLE);
    String trace = awaitFailed(s, config);
    assertTrue(trace.contains("STS AssumeRole of " + OTHER_ROLE), trace);
    assertTrue(trace.contains("was refused: AccessDenied"), trace);
    assertTrue(trace.contains("trust policy of " + OTHER_ROLE), trace);
    assertTrue(s3Calls(s).isEmpty(), "no S3 request without credentials: " + s3Calls(s));
    assertFalse(stsCalls(s, OTHER_ROLE).isEmpty());
    assertTrue(
        stsCalls(s, OTHER_ROLE).stream().allMatch(c -> "AccessDenied".equals(c.errorCode())));
    report(s);
  }

  // ------------------------------------------------------------------ helpers

  private Scenario scenario(String name) {
    Scenario s =
        new Scenario(
            name, "aws-" + name, aws.s3.createBucket(), "delta_log_" + name, Instant.now());
    connect.kafka().createTopic(s.topic(), 2);
    return s;
  }

  private Map<String, String> config(Scenario s) {
    Map<String, String> c = ConnectCluster.jsonSinkConfig(s.topic(), 2, s.table(), true);
    c.put("flush.interval.ms", "2000");
    c.putAll(aws.connectorConfig(s.dynamoDbTable()));
    return c;
  }

  private Map<String, String> workerKeys() {
    return Map.of(
        "aws.access.key.id",
        workers.accessKeyId(),
        "aws.secret.access.key",
        workers.secretAccessKey());
  }

  private void runAndVerify(Scenario s, Map<String, String> config, int count) throws Exception {
    ConnectCluster.runConnector(connect, s.name(), config, 2);
    OrderRecords records = new OrderRecords();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      records.produce(producer, s.topic(), 2, 0, count);
    }
    awaitTxnVersions(s, records, 60_000);
    assertExactlyOnce(s, count);
    assertTrue(failedTasks(s.name()).isEmpty(), "no task failed");
    connect.deleteConnector(s.name());
  }

  /** Creates the connector and waits for a FAILED task; its trace. */
  private String awaitFailed(Scenario s, Map<String, String> config) throws Exception {
    long t0 = System.nanoTime();
    connect.configureConnector(s.name(), config);
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      new OrderRecords().produce(producer, s.topic(), 2, 0, 10);
    }
    while (System.nanoTime() - t0 < 30_000_000_000L) {
      List<ConnectorStateInfo.TaskState> failed = failedTasks(s.name());
      if (!failed.isEmpty()) {
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String trace = failed.get(0).trace();
        System.out.printf(
            "[aws-it] %s: task %d FAILED %d ms after the connector was created: %s%n",
            s.name(), failed.get(0).id(), ms, firstLine(trace));
        connect.deleteConnector(s.name());
        return trace;
      }
      Thread.sleep(250);
    }
    fail(
        "no task of "
            + s.name()
            + " FAILED within 30 s: "
            + connect.connectorStatus(s.name()).tasks());
    return null;
  }

  private List<ConnectorStateInfo.TaskState> failedTasks(String connector) {
    try {
      return connect.connectorStatus(connector).tasks().stream()
          .filter(t -> t.state().equals("FAILED"))
          .toList();
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  private Configuration readerConf(Scenario s) {
    Configuration conf = new Configuration();
    // Past the fronts, straight to s3proxy and dynalite: the reader's calls are not recorded.
    S3Proxy.applyTo(conf, aws.s3.endpoint());
    conf.set("fs.s3a.impl", IdentityScopedS3AFileSystem.class.getName());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, s.dynamoDbTable());
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, aws.dynamo.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    return conf;
  }

  private void awaitTxnVersions(Scenario s, OrderRecords records, long timeoutMs)
      throws InterruptedException {
    Map<String, Long> want = new TreeMap<>();
    for (Map.Entry<TopicPartition, Long> e : records.lastOffsets().entrySet()) {
      want.put(s.name() + "-" + e.getKey().topic() + "-" + e.getKey().partition(), e.getValue());
    }
    long deadline = System.currentTimeMillis() + timeoutMs;
    Map<String, Long> held = Map.of();
    while (System.currentTimeMillis() < deadline) {
      try {
        held =
            new TreeMap<>(DeltaTableContents.txnVersions(readerConf(s), s.table(), want.keySet()));
      } catch (RuntimeException e) {
        // not created yet
      }
      if (want.equals(held)) {
        return;
      }
      Thread.sleep(500);
    }
    fail(
        "txn versions "
            + held
            + " did not reach "
            + want
            + "; tasks "
            + connect.connectorStatus(s.name()).tasks());
  }

  private void assertExactlyOnce(Scenario s, int count) throws Exception {
    DeltaTableContents table = DeltaTableContents.read(readerConf(s), s.table());
    assertEquals(count, table.rows(), "rows");
    assertEquals(count, table.idCounts().size(), "distinct records");
    for (long id = 0; id < count; id++) {
      assertEquals(1, table.idCounts().getOrDefault(id, 0), "copies of record " + id);
    }
  }

  private List<TestIam.Call> s3Calls(Scenario s) {
    return aws.iam.calls(
        c ->
            c.service().equals("s3")
                && c.details().getOrDefault("path", "").startsWith("/" + s.bucket()));
  }

  private List<TestIam.Call> dynamoDbCalls(Scenario s) {
    return aws.iam.calls(
        c -> c.service().equals("dynamodb") && s.dynamoDbTable().equals(c.details().get("table")));
  }

  /** STS calls about {@code roleArn} made by this scenario (its session names). */
  private List<TestIam.Call> stsCalls(Scenario s, String roleArn) {
    return aws.iam.calls(
        c ->
            c.service().equals("sts")
                && roleArn.equals(c.details().get("RoleArn"))
                && ("kcdelta-" + s.name()).equals(c.details().get("RoleSessionName")));
  }

  private void assertEverySigned(Scenario s, String principalArn, String issuedBy) {
    assertSigned(s3Calls(s), principalArn, "S3");
    assertSigned(dynamoDbCalls(s), principalArn, "DynamoDB");
    for (TestIam.Call c : s3Calls(s)) {
      assertEquals(issuedBy, aws.iam.key(c.accessKeyId()).issuedBy(), c.toString());
    }
  }

  private static void assertSigned(List<TestIam.Call> calls, String principalArn, String service) {
    assertFalse(calls.isEmpty(), service + " was called");
    for (TestIam.Call c : calls) {
      assertEquals(null, c.errorCode(), service + " refused " + c);
      assertEquals(principalArn, c.principalArn(), service + " call signed as another: " + c);
      assertTrue(c.accessKeyId().startsWith("ASIA"), "a vended session key: " + c);
    }
  }

  private void assertLogged(Scenario s, String text) {
    List<String> lines =
        log.lines().stream().filter(l -> l.contains("of connector " + s.name() + ":")).toList();
    assertTrue(
        lines.stream().anyMatch(l -> l.contains(text)),
        "no log line with '" + text + "' in " + lines);
  }

  /** What each service saw, by signer, and what the task said, for the closing note. */
  private void report(Scenario s) {
    List<String> lines = log.lines();
    for (TestIam.Key k : aws.iam.keys()) {
      for (String secret : new String[] {k.secretAccessKey(), k.sessionToken()}) {
        if (secret != null) {
          assertTrue(
              lines.stream().noneMatch(l -> l.contains(secret)),
              "a secret or token of " + k + " was logged");
        }
      }
    }
    System.out.printf(
        "[aws-it] %s: S3 %s; DynamoDB %s; STS %s; task log: %s%n",
        s.name(),
        summary(s3Calls(s)),
        summary(dynamoDbCalls(s)),
        summary(aws.iam.calls(stsOf(s))),
        log.lines().stream()
            .filter(l -> l.contains("of connector " + s.name() + ":"))
            .distinct()
            .collect(Collectors.joining(" | ")));
  }

  /** STS calls since the scenario started (scenarios run one after the other). */
  private static Predicate<TestIam.Call> stsOf(Scenario s) {
    return c -> c.service().equals("sts") && !c.at().isBefore(s.started());
  }

  private static String summary(List<TestIam.Call> calls) {
    Map<String, Long> bySigner =
        calls.stream()
            .collect(
                Collectors.groupingBy(
                    c ->
                        c.operation()
                            + " by "
                            + (c.principalArn() == null ? "(unsigned)" : c.principalArn())
                            + (c.errorCode() == null ? "" : " -> " + c.errorCode()),
                    TreeMap::new,
                    Collectors.counting()));
    long keys = calls.stream().map(TestIam.Call::accessKeyId).distinct().count();
    return calls.size() + " calls, " + keys + " access key ids " + bySigner;
  }

  private static String firstLine(String trace) {
    int nl = trace.indexOf('\n');
    return nl < 0 ? trace : trace.substring(0, nl);
  }
}
