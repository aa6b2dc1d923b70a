package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.aws.AwsAccessException;
import io.kcdelta.it.infra.AwsTestServers;
import io.kcdelta.it.infra.TestIam;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The log store's table check against dynalite behind the signature-checking front: a refusal of
 * the credentials or their rights is not retried and says the action, table, endpoint, identity and
 * what to check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynamoDbRefusalTest {
  private AwsTestServers aws;
  private TestIam.Key user;

  @BeforeAll
  void start() throws IOException {
    aws = AwsTestServers.start();
    user = aws.iam.addUser("111111111111", "log-store");
  }

  @AfterAll
  void stop() {
    if (aws != null) {
      aws.close();
    }
  }

  private DynamoDbSettings settings(String table, String accessKey, String secret) {
    Configuration conf = new Configuration(false);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, aws.dynamoFront.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, table);
    conf.set("fs.s3a.access.key", accessKey);
    conf.set("fs.s3a.secret.key", secret);
    return DynamoDbSettings.from(conf);
  }

  private AwsAccessException tableCheckFails(DynamoDbSettings s) {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                DynamoDbTableCreator.ensureExists(
                    DynamoDbClients.forSettings(s), new DynamoDbRetrier(s), s));
    AwsAccessException refused = assertInstanceOf(AwsAccessException.class, e);
    System.out.println("[dynamodb-refusal] " + refused.getMessage());
    return refused;
  }

  @Test
  void aWrongSecretIsNotRetriedAndSaysWhatToCheck() {
    String m =
        tableCheckFails(settings("log_wrong_secret", user.accessKeyId(), "nope")).getMessage();
    assertTrue(
        m.startsWith(
            "DynamoDB refused dynamodb:DescribeTable on table 'log_wrong_secret' at "
                + aws.dynamoFront.endpoint()
                + "/us-east-1 to static keys, access key id "
                + user.accessKeyId()
                + ": InvalidSignatureException"),
        m);
    assertTrue(m.contains("the secret key (aws.secret.access.key) is not the one"), m);
    assertFalse(m.contains("nope"), m);
    List<TestIam.Call> calls =
        aws.iam.calls(c -> "log_wrong_secret".equals(c.details().get("table")));
    assertEquals(1, calls.size(), "not retried: " + calls);
  }

  @Test
  void anUnknownKeyIsTheInvalidSecurityToken() {
    String m = tableCheckFails(settings("log_unknown", "AKIANOSUCHKEY0000000", "x")).getMessage();
    assertTrue(
        m.contains(
            "UnrecognizedClientException (The security token included in the request is invalid.)"),
        m);
    assertTrue(m.contains("The access key id or session token is not valid"), m);
  }

  @Test
  void aDeniedActionListsTheActionsTheLogStoreNeeds() {
    TestIam.Key limited = aws.iam.addUser("111111111111", "no-describe");
    aws.iam.deny("dynamodb", "DescribeTable", limited.principal().arn());
    String m =
        tableCheckFails(settings("log_denied", limited.accessKeyId(), limited.secretAccessKey()))
            .getMessage();
    assertTrue(m.contains("AccessDeniedException"), m);
    assertTrue(
        m.contains(
            "IAM actions the identity needs on arn:aws:dynamodb:<region>:<account>:table/log_denied:"
                + " dynamodb:DescribeTable, dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query"),
        m);
    assertTrue(m.contains("must use this table, in this region"), m);
  }
}
