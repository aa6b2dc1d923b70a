package io.kcdelta.retry;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.Crc32MismatchException;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Tells a passing failure (worth another attempt) from one that waiting cannot fix. An allow-list:
 * a failure is transient only when its cause chain holds a failure known to pass; everything else,
 * including every bug (a NullPointerException, an IllegalStateException, any unknown
 * RuntimeException), fails at once instead of being retried for minutes.
 *
 * <p>How a chain is read: links are looked at from the outside in, and the first link this class
 * knows decides, because the outer layer is the one that interpreted the inner error (S3A turns a
 * raw status 443 into {@code AWSNoResponseException}, a passing failure). A plain {@link
 * IOException} that is not known more precisely is weaker evidence: it counts only if no link
 * decides. So an {@code IOException} wrapping an access-denied answer or a NullPointerException is
 * permanent, and a {@code RuntimeException} wrapping an {@code IOException} (as {@link
 * java.io.UncheckedIOException} does) is transient.
 *
 * <p>Transient: throttling and 500/502/503/504 answers of AWS services (SDK v2) and their S3A
 * translations; SDK call and attempt timeouts; SDK client errors caused by an I/O error; socket
 * errors and timeouts; other I/O errors not listed below; other writers taking every log version a
 * commit tried (the next attempt reads them); a {@link java.nio.file.FileAlreadyExistsException}
 * (another writer took a log version first).
 *
 * <p>Refusals of the caller's credentials or rights (invalid, unknown or expired token, wrong
 * secret, access denied) are permanent wherever they are in the chain. S3A's "no credentials"
 * failures and SDK client errors that carry a service's answer are decided by their cause (a
 * credentials provider whose STS call failed: unreachable passes, refused does not).
 *
 * <p>Permanent: every other answer of an AWS service (4xx: access denied, validation, missing
 * table, a failed condition, wrong region; 501); SDK client errors without an I/O cause (no
 * credentials, bad region); the S3A failures that mean configuration (bad request, redirect,
 * unsupported feature, unknown bucket, credentials, class instantiation); access denied; {@link
 * java.io.FileNotFoundException} and other {@link java.nio.file.FileSystemException}s (a missing
 * bucket, table or log file, a truncated log, a hole in the log, a local permission error: nothing
 * a retry within minutes brings back); malformed JSON; interrupts (the thread is being stopped);
 * Kafka Connect's DataException; a table this connector cannot write and Delta Kernel's errors
 * (unsupported features, a corrupt log); programming errors and every {@link Error}.
 */
public final class Transience {

  /** Outcome of one link of a cause chain. */
  private enum Verdict {
    TRANSIENT,
    PERMANENT,
    PLAIN_IO,
    /** Decided by a cause further down; permanent if none decides. */
    DEFERRED,
    UNKNOWN
  }

  /**
   * Classes known by name: a class or its nearest known superclass decides. By name, not by class
   * reference, so the log store still loads where Kafka Connect, Delta Kernel or hadoop-aws are
   * absent (see package-info). Tests build each of them to catch a misspelt name.
   */
  private static final Map<String, Boolean> KNOWN = known();

  /**
   * S3A's "no credentials" failures: with a cause (a credentials provider that failed, e.g. STS
   * unreachable while a role is renewed) the cause decides; without one they are permanent.
   */
  private static final Set<String> DEFERRING =
      Set.of(
          "org.apache.hadoop.fs.s3a.CredentialInitializationException",
          "org.apache.hadoop.fs.s3a.auth.NoAuthWithAWSException");

  private static final Set<Integer> PASSING_STATUS = Set.of(500, 502, 503, 504);

  /** Error codes the SDK itself retries although their status is not 5xx. */
  private static final Set<String> PASSING_ERROR_CODES =
      Set.of(
          "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete", "InternalError");

  /**
   * Answers that refuse the caller's credentials or rights (S3, DynamoDB, STS): an invalid or
   * expired token, an unknown key, a wrong secret, access denied. Waiting does not change them, and
   * a renewing provider renews before expiry, so an expired token that reaches us will not pass.
   */
  private static final Set<String> REFUSED_CREDENTIALS =
      Set.of(
          "ExpiredToken",
          "ExpiredTokenException",
          "TokenRefreshRequired",
          "InvalidClientTokenId",
          "UnrecognizedClientException",
          "InvalidAccessKeyId",
          "InvalidToken",
          "IncompleteSignature",
          "IncompleteSignatureException",
          "SignatureDoesNotMatch",
          "InvalidSignatureException",
          "AccessDenied",
          "AccessDeniedException",
          "AllAccessDisabled",
          "MissingAuthenticationToken",
          "MissingAuthenticationTokenException");

  /** DynamoDB's and STS's words for an unknown key or token, whatever the code. */
  private static final String INVALID_TOKEN_TEXT =
      "the security token included in the request is invalid";

  private static final int MAX_CHAIN = 32;

  private Transience() {}

  public static boolean isTransient(Throwable failure) {
    if (refusesCredentials(failure)) {
      return false;
    }
    boolean plainIo = false;
    boolean deferred = false;
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      switch (verdict(t)) {
        case TRANSIENT:
          return true;
        case PERMANENT:
          return false;
        case PLAIN_IO:
          plainIo = true;
          break;
        case DEFERRED:
          deferred = true;
          break;
        default:
          break;
      }
    }
    return !deferred && plainIo;
  }

  /**
   * Whether an AWS answer anywhere in the chain refuses the caller's credentials or rights: such an
   * answer decides even under a wrapper that would pass for transient (an I/O exception, an SDK
   * client exception from a credentials provider).
   */
  public static boolean refusesCredentials(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      if (t instanceof SdkServiceException e) {
        String code = errorCode(e);
        if (code != null && REFUSED_CREDENTIALS.contains(code)) {
          return true;
        }
        if (e instanceof AwsServiceException ase
            && ase.awsErrorDetails() != null
            && ase.awsErrorDetails().errorMessage() != null
            && ase.awsErrorDetails()
                .errorMessage()
                .toLowerCase(Locale.ROOT)
                .contains(INVALID_TOKEN_TEXT)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Verdict verdict(Throwable t) {
    for (Class<?> c = t.getClass(); c != null && c != Throwable.class; c = c.getSuperclass()) {
      if (DEFERRING.contains(c.getName())) {
        return t.getCause() == null ? Verdict.PERMANENT : Verdict.DEFERRED;
      }
      Boolean passing = KNOWN.get(c.getName());
      if (passing != null) {
        return passing ? Verdict.TRANSIENT : Verdict.PERMANENT;
      }
    }
    if (t instanceof SdkServiceException e) {
      boolean passing =
          e.isThrottlingException()
              || PASSING_STATUS.contains(e.statusCode())
              || PASSING_ERROR_CODES.contains(errorCode(e));
      return passing ? Verdict.TRANSIENT : Verdict.PERMANENT;
    }
    if (t instanceof SdkClientException) {
      // Connection refused or reset, unknown host: the I/O cause further down says so; a service's
      // answer further down (a credentials provider's STS call) decides for itself. Without either
      // it is a local problem (no credentials, no region) that waiting does not fix.
      return hasIoCause(t) || hasServiceCause(t) ? Verdict.UNKNOWN : Verdict.PERMANENT;
    }
    return t instanceof IOException ? Verdict.PLAIN_IO : Verdict.UNKNOWN;
  }

  /** For a test that every name here is a class that exists. */
  static Set<String> knownClassNames() {
    Set<String> all = new HashSet<>(KNOWN.keySet());
    all.addAll(DEFERRING);
    return all;
  }

  private static String errorCode(SdkServiceException e) {
    if (e instanceof AwsServiceException ase && ase.awsErrorDetails() != null) {
      return ase.awsErrorDetails().errorCode();
    }
    return null;
  }

  private static boolean hasServiceCause(Throwable t) {
    int depth = 0;
    for (Throwable c = t.getCause(); c != null && depth < MAX_CHAIN; c = c.getCause(), depth++) {
      if (c instanceof SdkServiceException) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasIoCause(Throwable t) {
    int depth = 0;
    for (Throwable c = t.getCause(); c != null && depth < MAX_CHAIN; c = c.getCause(), depth++) {
      if (c instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, Boolean> known() {
    Map<String, Boolean> m = new HashMap<>();
    // JDK. SocketTimeoutException extends InterruptedIOException: the nearer class wins.
    passing(
        m,
        "java.net.SocketTimeoutException",
        "java.net.SocketException",
        "java.net.UnknownHostException",
        "java.net.http.HttpTimeoutException",
        "java.nio.file.FileAlreadyExistsException");
    permanent(
        m,
        "java.lang.InterruptedException",
        "java.io.InterruptedIOException",
        "java.nio.channels.ClosedByInterruptException",
        "java.io.FileNotFoundException",
        "java.nio.file.FileSystemException",
        "java.lang.NullPointerException",
        "java.lang.IllegalStateException",
        "java.lang.IllegalArgumentException",
        "java.lang.UnsupportedOperationException",
        "java.lang.ClassCastException",
        "java.lang.IndexOutOfBoundsException",
        "java.lang.ArithmeticException",
        "java.lang.Error");
    // AWS SDK v2 client-side failures that are more specific than "SdkClientException".
    passing(
        m,
        ApiCallTimeoutException.class.getName(),
        ApiCallAttemptTimeoutException.class.getName(),
        RetryableException.class.getName(),
        Crc32MismatchException.class.getName());
    permanent(
        m,
        AbortedException.class.getName(),
        // An answer ("another writer has this version"), not a failure.
        "software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException");
    // hadoop-aws 3.4 (S3AUtils.translateException and friends).
    String s3a = "org.apache.hadoop.fs.s3a.";
    passing(
        m,
        s3a + "AWSServiceThrottledException",
        s3a + "AWSStatus500Exception",
        s3a + "AWSNoResponseException",
        s3a + "AWSApiCallTimeoutException",
        s3a + "HttpChannelEOFException");
    permanent(
        m,
        s3a + "AWSBadRequestException",
        s3a + "AWSRedirectException",
        s3a + "AWSUnsupportedFeatureException",
        s3a + "UnknownStoreException",
        s3a + "NoVersionAttributeException",
        s3a + "RangeNotSatisfiableEOFException",
        s3a + "impl.InstantiationIOException",
        s3a + "api.UnsupportedRequestException",
        "org.apache.hadoop.security.AccessControlException",
        "org.apache.hadoop.fs.PathAccessDeniedException",
        "org.apache.hadoop.fs.PathPermissionException");
    // The Delta layer: other writers taking every version a commit tried passes (the next attempt
    // starts from the newer table); a table this connector cannot write does not, nor do Delta
    // Kernel's own errors (an unsupported feature, a corrupt or missing log).
    passing(m, "io.kcdelta.delta.ConcurrentCommitsException");
    permanent(
        m,
        "io.kcdelta.delta.UnsupportedTableException",
        "io.delta.kernel.exceptions.KernelException");
    // Malformed JSON (a corrupt log file) stays malformed; Jackson's exceptions are IOExceptions.
    permanent(m, "com.fasterxml.jackson.core.JacksonException");
    // Our own explained refusal of credentials or rights (io.kcdelta.aws, by name as all others).
    permanent(m, "io.kcdelta.aws.AwsAccessException");
    // Kafka Connect: a record that cannot be written.
    permanent(m, "org.apache.kafka.connect.errors.DataException");
    return Map.copyOf(m);
  }

  private static void passing(Map<String, Boolean> m, String... classNames) {
    for (String n : classNames) {
      m.put(n, true);
    }
  }

  private static void permanent(Map<String, Boolean> m, String... classNames) {
    for (String n : classNames) {
      m.put(n, false);
    }
  }
}
