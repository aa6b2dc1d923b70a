package io.kcdelta.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.AccessDeniedException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** What a refusal found in a task's failure is explained as, for failures after the preflight. */
class AwsAuthFailuresTest {

  private static S3Exception s3(int status, String code, String message) {
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .awsErrorDetails(
                code == null
                    ? AwsErrorDetails.builder().serviceName("S3").build()
                    : AwsErrorDetails.builder()
                        .serviceName("S3")
                        .errorCode(code)
                        .errorMessage(message)
                        .build())
            .build();
  }

  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, S3aCredentialsProvider.class.getName());
    conf.set(AwsIdentityKeys.ACCESS_KEY, "AKIAEXPLAIN000000001");
    conf.set(AwsIdentityKeys.SECRET_KEY, "explain-secret");
    return conf;
  }

  @Test
  void anS3aDenialOfAnUploadNamesTheOperationTheTableAndTheActions() {
    String file = "s3a://lake/warehouse/orders/region=eu/part-kcd_x-1.parquet";
    AccessDeniedException denied =
        new AccessDeniedException(
            file,
            null,
            "PUT 0-byte object  on "
                + file
                + ": software.amazon.awssdk.services.s3.model.S3Exception: Access Denied"
                + " (Service: S3, Status Code: 403):AccessDenied");
    denied.initCause(s3(403, "AccessDenied", "Access Denied"));
    String m =
        AwsAuthFailures.explain(
                new RuntimeException("upload", denied), conf(), "s3a://lake/warehouse/orders")
            .orElseThrow();
    assertEquals(
        "S3 refused PUT 0-byte object on bucket 'lake', prefix 'warehouse/orders/' to static keys,"
            + " access key id AKIAEXPLAIN000000001: AccessDenied (Access Denied). The identity was"
            + " recognised but is not allowed this request. IAM actions the identity needs:"
            + " s3:ListBucket on arn:aws:s3:::lake (for the prefix 'warehouse/orders/'), and"
            + " s3:GetObject, s3:PutObject, s3:DeleteObject, s3:AbortMultipartUpload on"
            + " arn:aws:s3:::lake/warehouse/orders/*; a bucket policy, an SCP or a KMS key policy"
            + " may deny them too.",
        m);
  }

  @Test
  void aHeadRequestsBareForbiddenSaysItCouldBeEither() {
    String path = "s3a://lake/warehouse/orders/_delta_log";
    AccessDeniedException denied =
        new AccessDeniedException(path, null, "getFileStatus on " + path + ": S3Exception: null");
    denied.initCause(s3(403, null, null));
    String m = AwsAuthFailures.explain(denied, conf(), null).orElseThrow();
    assertTrue(
        m.startsWith(
            "S3 refused getFileStatus on bucket 'lake', prefix 'warehouse/orders/_delta_log/'"),
        m);
    assertTrue(m.contains("403 Forbidden without an error code"), m);
    assertTrue(m.contains("S3 gives no reason with a HEAD request"), m);
  }

  @Test
  void failuresThatRefuseNothingAreNotExplained() {
    assertEquals(
        Optional.empty(), AwsAuthFailures.explain(s3(503, "SlowDown", "slow"), conf(), null));
    assertEquals(
        Optional.empty(), AwsAuthFailures.explain(new IllegalStateException("bug"), conf(), null));
  }

  @Test
  void aRawDynamoDbRefusalIsStillToldByItsCode() {
    DynamoDbException e =
        (DynamoDbException)
            DynamoDbException.builder()
                .statusCode(400)
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .serviceName("DynamoDb")
                        .errorCode("ExpiredTokenException")
                        .errorMessage("The security token included in the request is expired")
                        .build())
                .build();
    String m = AwsAuthFailures.explain(e, conf(), null).orElseThrow();
    assertTrue(m.startsWith("DynamoDB refused the request: ExpiredTokenException"), m);
  }

  @Test
  void anExplainedRefusalKeepsItsMessage() {
    AwsAccessException explained =
        new AwsAccessException("S3 refused X", s3(403, "AccessDenied", "no"));
    assertEquals(
        "S3 refused X",
        AwsAuthFailures.explain(new RuntimeException(explained), conf(), null).orElseThrow());
  }
}
