package io.kcdelta.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.it.infra.AwsTestServers;
import io.kcdelta.it.infra.TestIam;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** bin/delta-sink-status says who S3 and DynamoDB act as, also when it cannot read the table. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeltaSinkStatusAwsTest {
  private AwsTestServers aws;
  private TestIam.Key user;

  @BeforeAll
  void start() throws Exception {
    aws = AwsTestServers.start();
    user = aws.iam.addUser("111111111111", "status-reader");
  }

  @AfterAll
  void stop() {
    if (aws != null) {
      aws.close();
    }
  }

  private String[] args(String secret, String table) {
    List<String> a = new ArrayList<>();
    for (Map.Entry<String, String> e : aws.connectorConfig("status_log").entrySet()) {
      a.add("--set");
      a.add(e.getKey() + "=" + e.getValue());
    }
    a.addAll(
        List.of(
            "--set",
            "aws.access.key.id=" + user.accessKeyId(),
            "--set",
            "aws.secret.access.key=" + secret,
            table));
    return a.toArray(String[]::new);
  }

  @Test
  void theIdentityIsLookedUpAndPrintedBesideTheReadError() {
    String table = "s3a://" + aws.s3.createBucket() + "/warehouse/none";
    String[] out = run(args(user.secretAccessKey(), table));
    assertEquals("1", out[0], out[2]);
    assertTrue(out[2].contains("No Delta table at"), out[2]);
    assertTrue(
        out[2].contains(
            "delta-sink-status: S3 and DynamoDB act as "
                + user.principal().arn()
                + " (static keys, access key id "
                + user.accessKeyId()
                + ")"),
        out[2]);
  }

  @Test
  void aWrongSecretIsExplained() {
    String table = "s3a://" + aws.s3.createBucket() + "/warehouse/orders";
    String[] out = run(args("wrong-" + user.secretAccessKey(), table));
    assertEquals("1", out[0], out[2]);
    assertTrue(out[2].contains("refused"), out[2]);
    assertTrue(out[2].contains("the secret key (aws.secret.access.key) is not the one"), out[2]);
    assertTrue(out[2].contains("STS GetCallerIdentity failed: SignatureDoesNotMatch"), out[2]);
    assertFalse(out[2].contains(user.secretAccessKey()), "no secret printed");
  }

  private static String[] run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        DeltaSinkStatus.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    System.out.println("[status] exit " + code + "\n" + out + err);
    return new String[] {
      String.valueOf(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8)
    };
  }
}
