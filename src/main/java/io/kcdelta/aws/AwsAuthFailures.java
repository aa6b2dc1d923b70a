package io.kcdelta.aws;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * What an authentication or authorization failure of S3, DynamoDB or STS means, in a message that
 * names the service, the operation, the resource, the identity and what to check (IAM actions,
 * keys, trust policy). Never a secret: identities are told by ARN or access key id.
 */
public final class AwsAuthFailures {

  /** What kind of refusal an error code means. */
  public enum Kind {
    EXPIRED_TOKEN,
    INVALID_KEY,
    WRONG_SECRET,
    ACCESS_DENIED,
    NO_CREDENTIALS
  }

  /** The answers of S3, DynamoDB and STS that mean the caller's credentials or rights. */
  static final Map<String, Kind> CODES =
      Map.ofEntries(
          Map.entry("ExpiredToken", Kind.EXPIRED_TOKEN),
          Map.entry("ExpiredTokenException", Kind.EXPIRED_TOKEN),
          Map.entry("TokenRefreshRequired", Kind.EXPIRED_TOKEN),
          Map.entry("InvalidClientTokenId", Kind.INVALID_KEY),
          Map.entry("UnrecognizedClientException", Kind.INVALID_KEY),
          Map.entry("InvalidAccessKeyId", Kind.INVALID_KEY),
          Map.entry("InvalidToken", Kind.INVALID_KEY),
          Map.entry("IncompleteSignature", Kind.INVALID_KEY),
          Map.entry("IncompleteSignatureException", Kind.INVALID_KEY),
          Map.entry("SignatureDoesNotMatch", Kind.WRONG_SECRET),
          Map.entry("InvalidSignatureException", Kind.WRONG_SECRET),
          Map.entry("AccessDenied", Kind.ACCESS_DENIED),
          Map.entry("AccessDeniedException", Kind.ACCESS_DENIED),
          Map.entry("AllAccessDisabled", Kind.ACCESS_DENIED),
          Map.entry("MissingAuthenticationToken", Kind.NO_CREDENTIALS),
          Map.entry("MissingAuthenticationTokenException", Kind.NO_CREDENTIALS));

  private static final String INVALID_TOKEN_TEXT =
      "the security token included in the request is invalid";

  /** S3A's messages: "PATH: OPERATION on PATH: CAUSE". */
  private static final Pattern S3A_MESSAGE =
      Pattern.compile("^\\S+: (.+?) on (s3a://[^:\\s]+)", Pattern.MULTILINE);

  private static final int MAX_CHAIN = 32;

  private AwsAuthFailures() {}

  /** One refusal found in a cause chain. */
  public record Refusal(String service, String code, Kind kind, String serviceMessage) {}

  /** The failure of one of our credentials providers (a role not assumed) in the chain. */
  public static Optional<AwsCredentialsException> credentialsFailure(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      if (t instanceof AwsCredentialsException e) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** The first AWS refusal of the caller's credentials or rights in {@code failure}'s chain. */
  public static Optional<Refusal> find(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      if (t instanceof AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        Kind kind = code == null ? null : CODES.get(code);
        String text = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorMessage();
        if (kind == null
            && text != null
            && text.toLowerCase(Locale.ROOT).contains(INVALID_TOKEN_TEXT)) {
          kind = Kind.INVALID_KEY;
        }
        if (kind == null && (e.statusCode() == 403 || e.statusCode() == 401)) {
          kind = Kind.ACCESS_DENIED;
        }
        if (kind != null) {
          return Optional.of(new Refusal(serviceOf(e), code, kind, text));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The whole explanation of an S3 or DynamoDB refusal in {@code failure}, with the identity the
   * connector configured (from {@code conf}); empty when the failure is no refusal of credentials
   * or rights.
   *
   * @param tablePath the table the failing operation was for (null: unknown)
   */
  public static Optional<String> explain(Throwable failure, Configuration conf, String tablePath) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      if (t instanceof AwsAccessException || t instanceof AwsCredentialsException) {
        return Optional.of(t.getMessage());
      }
    }
    Optional<Refusal> refusal = find(failure);
    if (refusal.isEmpty()) {
      return Optional.empty();
    }
    Refusal r = refusal.get();
    if (!"S3".equals(r.service())) {
      // DynamoDB's refusals are explained where they happen (the log store knows the table);
      // STS's by the provider (it knows the role).
      return Optional.of(
          r.service()
              + " refused the request: "
              + describe(r)
              + ". "
              + advice(r.kind(), conf == null ? null : identityOf(conf)));
    }
    String operation = "a request";
    String path = tablePath;
    Matcher m = S3A_MESSAGE.matcher(messageChain(failure));
    if (m.find()) {
      operation = m.group(1).trim();
      if (path == null) {
        path = m.group(2);
      }
    }
    return Optional.of(s3Refused(operation, path, conf == null ? null : identityOf(conf), r));
  }

  /** The message for S3 refusing {@code operation} on the table at {@code tablePath}. */
  static String s3Refused(String operation, String tablePath, AwsIdentity identity, Refusal r) {
    String bucket = null;
    String prefix = "";
    if (tablePath != null) {
      URI uri = URI.create(tablePath.replace(" ", "%20"));
      bucket = uri.getAuthority();
      prefix = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
      if (!prefix.isEmpty() && !prefix.endsWith("/")) {
        prefix = prefix + "/";
      }
    }
    StringBuilder m = new StringBuilder("S3 refused ").append(operation);
    if (bucket != null) {
      m.append(" on bucket '").append(bucket).append("', prefix '").append(prefix).append("'");
    }
    m.append(" to ")
        .append(identity == null ? "the configured credentials" : identity.describeKnown());
    m.append(": ").append(describe(r)).append(". ");
    if (r.code() == null) {
      // S3 answers HEAD requests with a bare status.
      m.append(
          "S3 gives no reason with a HEAD request: the keys may be wrong (unknown access key id, "
              + "wrong secret, expired token) or the identity may lack the rights below.");
    } else {
      m.append(advice(r.kind(), identity));
    }
    if (r.kind() == Kind.ACCESS_DENIED) {
      m.append(" IAM actions the identity needs");
      if (bucket != null) {
        m.append(": s3:ListBucket on arn:aws:s3:::")
            .append(bucket)
            .append(" (for the prefix '")
            .append(prefix)
            .append(
                "'), and s3:GetObject, s3:PutObject, s3:DeleteObject, s3:AbortMultipartUpload on arn:aws:s3:::")
            .append(bucket)
            .append("/")
            .append(prefix)
            .append("*");
      } else {
        m.append(
            ": s3:ListBucket on the bucket, s3:GetObject, s3:PutObject, s3:DeleteObject and s3:AbortMultipartUpload on the table's prefix");
      }
      m.append("; a bucket policy, an SCP or a KMS key policy may deny them too.");
    }
    return m.toString();
  }

  /** The message for DynamoDB refusing {@code action} on the log store's table. */
  public static String dynamoDbRefused(
      String action, String table, String where, AwsIdentity identity, Refusal r) {
    StringBuilder m =
        new StringBuilder("DynamoDB refused dynamodb:")
            .append(action)
            .append(" on table '")
            .append(table)
            .append("' at ")
            .append(where)
            .append(" to ")
            .append(identity.describeKnown())
            .append(": ")
            .append(describe(r))
            .append(". ")
            .append(advice(r.kind(), identity));
    if (r.kind() == Kind.ACCESS_DENIED) {
      m.append(" IAM actions the identity needs on arn:aws:dynamodb:<region>:<account>:table/")
          .append(table)
          .append(": dynamodb:DescribeTable, dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query")
          .append(
              " (and dynamodb:CreateTable, dynamodb:UpdateTimeToLive while the connector creates the table).")
          .append(
              " Every writer of the Delta table (Spark included) must use this table, in this region.");
    }
    return m.toString();
  }

  /** The message for STS refusing or failing to assume {@code role} from {@code base}. */
  static String assumeRoleFailed(AwsIdentitySettings.Role role, AwsIdentity base, SdkException e) {
    String who = base.describeKnown();
    String what =
        "STS AssumeRole of "
            + role.arn()
            + " (session "
            + role.sessionName()
            + (role.externalId() == null ? ", no external id" : ", with an external id")
            + ") for "
            + who;
    Optional<Refusal> refusal = find(e);
    if (refusal.isEmpty()) {
      return what + " failed: " + e.getMessage();
    }
    Refusal r = refusal.get();
    if (r.kind() == Kind.ACCESS_DENIED) {
      return what
          + " was refused: "
          + describe(r)
          + ". Check the trust policy of "
          + role.arn()
          + ": it must allow sts:AssumeRole for "
          + who
          + (role.externalId() == null
              ? " (if it requires sts:ExternalId, set the external id)"
              : " with the condition sts:ExternalId equal to the external id set here")
          + "; and the caller's own policy must allow sts:AssumeRole on "
          + role.arn()
          + ".";
    }
    return what
        + " was refused because of the calling credentials: "
        + describe(r)
        + ". "
        + advice(r.kind(), base);
  }

  /** "CODE (STATUS): MESSAGE" of an STS answer, for a log line. */
  static String shortReason(SdkException e) {
    Optional<Refusal> refusal = find(e);
    if (refusal.isPresent()) {
      return describe(refusal.get());
    }
    return e.getMessage();
  }

  private static String describe(Refusal r) {
    String code = r.code() == null ? "403 Forbidden without an error code" : r.code();
    return r.serviceMessage() == null || r.serviceMessage().isBlank()
        ? code
        : code + " (" + r.serviceMessage() + ")";
  }

  private static String advice(Kind kind, AwsIdentity identity) {
    boolean assumed = identity != null && identity.settings().role() != null;
    boolean staticToken =
        identity != null
            && identity.settings().role() == null
            && identity.settings().keys() != null
            && identity.settings().keys().sessionToken() != null;
    return switch (kind) {
      case EXPIRED_TOKEN ->
          staticToken
              ? "The session token (aws.session.token) has expired; temporary static keys are never renewed: give new ones, or use aws.assume.role.arn or the default chain, whose sessions are renewed."
              : assumed
                  ? "The session had expired although it is renewed ahead of its expiry: check that this host's clock agrees with AWS."
                  : "The session token has expired; if it comes from the default chain (environment, profile), renew it there.";
      case INVALID_KEY ->
          "The access key id or session token is not valid: a deleted or mistyped key, temporary keys without their session token (or with another one's), or keys of another AWS partition.";
      case WRONG_SECRET ->
          "The signature does not match: the secret key (aws.secret.access.key) is not the one of this access key id.";
      case ACCESS_DENIED -> "The identity was recognised but is not allowed this request.";
      case NO_CREDENTIALS -> "The request carried no credentials.";
    };
  }

  private static AwsIdentity identityOf(Configuration conf) {
    try {
      return AwsIdentities.s3UsesConnectorIdentity(conf) ? AwsIdentities.forS3(conf) : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String serviceOf(AwsServiceException e) {
    String name = e.awsErrorDetails() == null ? null : e.awsErrorDetails().serviceName();
    if (name == null) {
      return "AWS";
    }
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "s3" -> "S3";
      case "dynamodb" -> "DynamoDB";
      case "sts" -> "STS";
      default -> name;
    };
  }

  private static String messageChain(Throwable failure) {
    StringBuilder s = new StringBuilder();
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CHAIN; t = t.getCause(), depth++) {
      if (t.getMessage() != null) {
        s.append(t.getMessage()).append('\n');
      }
    }
    return s.toString();
  }
}
