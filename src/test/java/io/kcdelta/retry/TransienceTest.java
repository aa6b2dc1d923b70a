package io.kcdelta.retry;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kcdelta.aws.AwsAccessException;
import io.kcdelta.aws.AwsCredentialsException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.util.stream.Stream;
import org.apache.hadoop.fs.s3a.AWSApiCallTimeoutException;
import org.apache.hadoop.fs.s3a.AWSBadRequestException;
import org.apache.hadoop.fs.s3a.AWSClientIOException;
import org.apache.hadoop.fs.s3a.AWSNoResponseException;
import org.apache.hadoop.fs.s3a.AWSRedirectException;
import org.apache.hadoop.fs.s3a.AWSServiceThrottledException;
import org.apache.hadoop.fs.s3a.AWSStatus500Exception;
import org.apache.hadoop.fs.s3a.AWSUnsupportedFeatureException;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.apache.hadoop.fs.s3a.auth.NoAuthWithAWSException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sts.model.StsException;

/**
 * The allow-list, one row per failure shape the connector meets (built as the libraries build
 * them).
 */
class TransienceTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        // AWS SDK v2 answers
        row("DynamoDB 503", true, ddb(503, "ServiceUnavailable")),
        row("DynamoDB 500", true, ddb(500, "InternalServerError")),
        row("DynamoDB throttling (400 ThrottlingException)", true, ddb(400, "ThrottlingException")),
        row(
            "DynamoDB ProvisionedThroughputExceeded",
            true,
            ProvisionedThroughputExceededException.builder()
                .statusCode(400)
                .awsErrorDetails(details("ProvisionedThroughputExceededException"))
                .build()),
        row("S3 503 SlowDown", true, s3(503, "SlowDown")),
        row("S3 429", true, s3(429, "TooManyRequests")),
        row("S3 400 RequestTimeout", true, s3(400, "RequestTimeout")),
        row("API call timeout", true, ApiCallTimeoutException.create(25_000)),
        row("API call attempt timeout", true, ApiCallAttemptTimeoutException.create(5_000)),
        row(
            "SDK client error from connection refused",
            true,
            SdkClientException.create(
                "Unable to execute HTTP request", new ConnectException("refused"))),
        row("DynamoDB 400 ValidationException", false, ddb(400, "ValidationException")),
        row("DynamoDB 400 AccessDeniedException", false, ddb(400, "AccessDeniedException")),
        row("S3 403", false, s3(403, "AccessDenied")),
        row("S3 501 NotImplemented", false, s3(501, "NotImplemented")),
        row(
            "DynamoDB missing table",
            false,
            ResourceNotFoundException.builder()
                .statusCode(400)
                .awsErrorDetails(details("ResourceNotFoundException"))
                .build()),
        row(
            "conditional check failed (an answer)",
            false,
            ConditionalCheckFailedException.builder()
                .statusCode(400)
                .awsErrorDetails(details("ConditionalCheckFailedException"))
                .build()),
        row(
            "SDK client error without I/O cause (no credentials)",
            false,
            SdkClientException.create("Unable to load credentials from any of the providers")),
        row("SDK aborted (interrupt)", false, AbortedException.create("Thread was interrupted")),
        // Refusals of the caller's credentials or rights (issue 36): permanent wherever they are
        row("DynamoDB UnrecognizedClientException", false, ddb(400, "UnrecognizedClientException")),
        row("DynamoDB ExpiredTokenException", false, ddb(400, "ExpiredTokenException")),
        row("DynamoDB InvalidSignatureException", false, ddb(400, "InvalidSignatureException")),
        row(
            "DynamoDB 'security token ... invalid' under another code",
            false,
            DynamoDbException.builder()
                .statusCode(400)
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .errorCode("SomethingElse")
                        .errorMessage("The security token included in the request is invalid.")
                        .build())
                .build()),
        row("STS InvalidClientTokenId", false, sts(403, "InvalidClientTokenId")),
        row("STS ExpiredToken", false, sts(400, "ExpiredToken")),
        row("STS AssumeRole AccessDenied", false, sts(403, "AccessDenied")),
        row("S3 SignatureDoesNotMatch", false, s3(403, "SignatureDoesNotMatch")),
        row("S3 ExpiredToken", false, s3(400, "ExpiredToken")),
        row("S3 InvalidAccessKeyId", false, s3(403, "InvalidAccessKeyId")),
        row("S3 InvalidToken", false, s3(400, "InvalidToken")),
        row(
            "an expired token under a wrapper that passes for transient",
            false,
            RetryableException.create("retry", ddb(400, "ExpiredTokenException"))),
        row(
            "S3A: AssumeRole refused inside the credentials provider",
            false,
            new NoAuthWithAWSException(
                "No AWS Credentials provided by S3aCredentialsProvider",
                new AwsCredentialsException(
                    "STS AssumeRole of arn:aws:iam::1:role/r was refused",
                    sts(403, "AccessDenied")))),
        row(
            "S3A: STS unreachable while a role is renewed",
            true,
            new NoAuthWithAWSException(
                "No AWS Credentials provided by S3aCredentialsProvider",
                new AwsCredentialsException(
                    "STS AssumeRole of arn:aws:iam::1:role/r failed",
                    SdkClientException.create("io", new ConnectException("refused"))))),
        row(
            "DynamoDB: STS 503 while a role is renewed",
            true,
            new AwsCredentialsException(
                "STS AssumeRole of arn:aws:iam::1:role/r failed", sts(503, "ServiceUnavailable"))),
        row(
            "SDK client error carrying an STS refusal",
            false,
            SdkClientException.create("Unable to load credentials", sts(403, "AccessDenied"))),
        row(
            "our explained refusal",
            false,
            new AwsAccessException("S3 refused ListObjectsV2 ...", s3(403, "AccessDenied"))),
        // S3A translations (hadoop-aws 3.4)
        row("S3A throttled", true, new AWSServiceThrottledException("GET", s3(503, "SlowDown"))),
        row("S3A 500", true, new AWSStatus500Exception("PUT", s3(500, "InternalError"))),
        row("S3A no response (443)", true, new AWSNoResponseException("HEAD", s3(443, null))),
        row(
            "S3A API call timeout",
            true,
            new AWSApiCallTimeoutException("LIST", ApiCallTimeoutException.create(60_000))),
        row(
            "S3A client error from connection reset",
            true,
            new AWSClientIOException(
                "GET",
                SdkClientException.create(
                    "reset", new java.net.SocketException("Connection reset")))),
        row(
            "S3A client error without I/O cause",
            false,
            new AWSClientIOException("GET", SdkClientException.create("no region"))),
        row("S3A bad request", false, new AWSBadRequestException("PUT", s3(400, "InvalidRequest"))),
        row(
            "S3A redirect (wrong region)",
            false,
            new AWSRedirectException("HEAD", s3(301, "PermanentRedirect"))),
        row(
            "S3A unsupported feature",
            false,
            new AWSUnsupportedFeatureException("PUT", s3(501, "NotImplemented"))),
        row(
            "S3A unknown bucket",
            false,
            new UnknownStoreException("s3a://missing", "bucket does not exist")),
        row("S3A no credentials", false, new NoAuthWithAWSException("No AWS Credentials provided")),
        row(
            "S3A access denied (nio) from a 403",
            false,
            initCause(new AccessDeniedException("s3a://b/t"), s3(403, "AccessDenied"))),
        row(
            "S3A 404 on a file",
            false,
            initCause(
                new FileNotFoundException("s3a://b/t/_delta_log/x.json"), s3(404, "NoSuchKey"))),
        row(
            "S3A 412 (conditional write lost: an answer)",
            false,
            new RemoteFileChangedException(
                "s3a://b/x", "PUT", "precondition failed", s3(412, "PreconditionFailed"))),
        row(
            "S3A object changed while read",
            true,
            new RemoteFileChangedException("s3a://b/x", "GET", "etag changed")),
        row("Hadoop access control", false, new AccessControlException("Permission denied")),
        // JDK I/O
        row("plain IOException", true, new IOException("injected: storage unavailable")),
        row("connection refused", true, new ConnectException("Connection refused")),
        row(
            "socket timeout (an InterruptedIOException, but not an interrupt)",
            true,
            new SocketTimeoutException("Read timed out")),
        row("unknown host", true, new UnknownHostException("dynamodb.nowhere")),
        row("early EOF", true, new EOFException("premature end of stream")),
        row(
            "log version taken by another writer",
            true,
            new FileAlreadyExistsException("_delta_log/00000000000000000007.json")),
        row("missing file", false, new FileNotFoundException("No such file or directory")),
        row(
            "hole in the log",
            false,
            new FileSystemException("_delta_log/00000000000000000006.json", null, "missing")),
        row("local access denied", false, new AccessDeniedException("/data/table")),
        row("interrupted I/O", false, new InterruptedIOException("interrupted")),
        row("interrupted channel", false, new ClosedByInterruptException()),
        row("interrupted", false, new InterruptedException()),
        row(
            "malformed JSON in the log",
            false,
            new com.fasterxml.jackson.core.JsonParseException(null, "Unexpected character")),
        // The Delta layer and Delta Kernel
        row(
            "other writers took every version",
            true,
            new io.kcdelta.delta.ConcurrentCommitsException(
                "taken", new java.nio.file.FileAlreadyExistsException("5.json"))),
        row(
            "a table feature we do not implement",
            false,
            new io.kcdelta.delta.UnsupportedTableException("uses table feature(s) [x]")),
        row(
            "Kernel cannot read the table",
            false,
            new io.delta.kernel.exceptions.KernelException("Unsupported Delta reader feature")),
        // Ours and programming errors
        row("record cannot be converted", false, new DataException("bad value")),
        row("NullPointerException", false, new NullPointerException()),
        row("IllegalStateException", false, new IllegalStateException("bug")),
        row("IllegalArgumentException", false, new IllegalArgumentException("bad config")),
        row("unknown RuntimeException", false, new RuntimeException("who knows")),
        row("unknown checked exception", false, new Exception("who knows")),
        row("Error", false, new OutOfMemoryError("Java heap space")),
        row(
            "class init failed on an I/O error",
            false,
            new ExceptionInInitializerError(new IOException("x"))),
        // Chains
        row(
            "sneaky I/O from Delta wrapped unchecked",
            true,
            new UncheckedIOException("x", new IOException("y"))),
        row(
            "deep chain ending in a connection refusal",
            true,
            new org.apache.kafka.connect.errors.ConnectException(
                "commit",
                new RuntimeException(
                    new UncheckedIOException(
                        "x",
                        new IOException(
                            "retrier gave up",
                            SdkClientException.create("io", new ConnectException("refused"))))))),
        row(
            "retrier gave up on throttling",
            true,
            new IOException("throttled for 8 attempts", ddb(400, "ThrottlingException"))),
        row(
            "retrier's access-denied message",
            false,
            new IOException("Access denied to DynamoDB", ddb(400, "AccessDeniedException"))),
        row(
            "I/O error wrapping a NullPointerException",
            false,
            new IOException("provider failed", new NullPointerException())),
        row(
            "I/O error wrapping an interrupt",
            false,
            new IOException("stopped", new InterruptedException())),
        row(
            "RuntimeException wrapping a missing table",
            false,
            new RuntimeException(new FileNotFoundException("gone"))),
        row(
            "Delta error wrapping I/O",
            false,
            new io.delta.kernel.exceptions.KernelException("x", new IOException("y"))),
        row(
            "unknown wrapper of a conflict",
            true,
            new RuntimeException(
                new io.kcdelta.delta.ConcurrentCommitsException(
                    "x", new java.nio.file.FileAlreadyExistsException("5.json")))));
  }

  @ParameterizedTest(name = "{0} -> transient={1}")
  @MethodSource("failures")
  void classifies(String what, boolean expected, Throwable failure) {
    assertEquals(expected, Transience.isTransient(failure), what + ": " + failure);
  }

  @Test
  void aCauseCycleEnds() {
    IOException a = new IOException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertEquals(true, Transience.isTransient(b));
  }

  @Test
  void everyClassKnownByNameExists() {
    for (String name : Transience.knownClassNames()) {
      assertDoesNotThrow(
          () -> Class.forName(name, false, TransienceTest.class.getClassLoader()), name);
    }
  }

  private static Arguments row(String what, boolean transientFailure, Throwable failure) {
    return Arguments.of(what, transientFailure, failure);
  }

  private static <T extends Throwable> T initCause(T t, Throwable cause) {
    t.initCause(cause);
    return t;
  }

  private static AwsErrorDetails details(String code) {
    return AwsErrorDetails.builder().errorCode(code).errorMessage(code + " message").build();
  }

  private static AwsServiceException ddb(int status, String code) {
    return DynamoDbException.builder().statusCode(status).awsErrorDetails(details(code)).build();
  }

  private static AwsServiceException sts(int status, String code) {
    return StsException.builder().statusCode(status).awsErrorDetails(details(code)).build();
  }

  private static AwsServiceException s3(int status, String code) {
    return S3Exception.builder()
        .statusCode(status)
        .awsErrorDetails(code == null ? null : details(code))
        .build();
  }
}
