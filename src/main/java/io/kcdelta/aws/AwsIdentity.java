package io.kcdelta.aws;

import io.kcdelta.aws.AwsIdentitySettings.Role;
import io.kcdelta.aws.AwsIdentitySettings.StaticKeys;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.model.AssumeRoleResponse;
import software.amazon.awssdk.services.sts.model.Credentials;
import software.amazon.awssdk.services.sts.model.GetCallerIdentityResponse;

/**
 * One AWS identity of this JVM: its credentials provider, where the credentials come from, and who
 * they are (STS GetCallerIdentity, asked once and remembered). Made by {@link AwsIdentities}, one
 * per distinct {@link AwsIdentitySettings}, so the tasks of a worker and S3A and DynamoDB share it.
 */
public final class AwsIdentity {
  private static final Logger LOG = LoggerFactory.getLogger(AwsIdentity.class);

  /** How long a failed lookup is remembered before the next task start asks again. */
  private static final Duration LOOKUP_RETRY = Duration.ofMinutes(1);

  private final AwsIdentitySettings settings;
  private final AwsIdentity base;
  private final AwsCredentialsProvider provider;
  private StsClient sts;
  private volatile CallerIdentity caller;
  private long callerFailedAtNanos;
  private String callerFailure;

  /** Who STS says the credentials are. */
  public record CallerIdentity(String arn, String account) {}

  AwsIdentity(AwsIdentitySettings settings, AwsIdentity base) {
    this.settings = settings;
    this.base = base;
    Role role = settings.role();
    if (role == null) {
      this.provider = baseProvider(settings.keys());
    } else {
      StsClient roleSts =
          stsClient(settings, base.provider(), Duration.ofSeconds(5), Duration.ofSeconds(15));
      this.provider =
          new RefreshingCredentials("role " + role.arn(), () -> assumeRole(roleSts, role));
    }
  }

  public AwsIdentitySettings settings() {
    return settings;
  }

  /** The provider S3A (through {@link S3aCredentialsProvider}) and DynamoDB sign with. */
  public AwsCredentialsProvider provider() {
    return provider;
  }

  /**
   * Where the credentials come from, e.g. "role arn:aws:iam::1:role/r assumed from static keys
   * (access key id AKIA…)"; no lookup, never a secret.
   */
  public String source() {
    Role role = settings.role();
    if (role != null) {
      return "role "
          + role.arn()
          + " assumed"
          + (role.externalId() == null ? "" : " with an external id")
          + " from "
          + base.describeKnown();
    }
    StaticKeys keys = settings.keys();
    if (keys == null) {
      return "the AWS default credential chain" + DefaultChainSource.describe();
    }
    return keys.sessionToken() == null
        ? "static keys, access key id " + keys.accessKeyId()
        : "temporary static keys, access key id "
            + keys.accessKeyId()
            + ", with a session token that is never renewed";
  }

  /** The identity this one's role is assumed from (null for base credentials). */
  public AwsIdentity base() {
    return base;
  }

  /** The ARN if it was looked up, else where the credentials come from. Never blocks. */
  public String describeKnown() {
    CallerIdentity c = caller;
    return c == null ? source() : c.arn() + " (" + source() + ")";
  }

  /**
   * Who the credentials are, from STS GetCallerIdentity (once per identity and JVM; a failure is
   * asked again after a minute). Empty with {@link #lookupFailure()} set when STS said no or could
   * not be reached.
   */
  public synchronized Optional<CallerIdentity> lookUp() {
    if (caller != null) {
      return Optional.of(caller);
    }
    if (callerFailure != null && System.nanoTime() - callerFailedAtNanos < LOOKUP_RETRY.toNanos()) {
      return Optional.empty();
    }
    try {
      if (sts == null) {
        // Short: this only tells who we are, at task start.
        sts = stsClient(settings, provider, Duration.ofSeconds(3), Duration.ofSeconds(6));
      }
      GetCallerIdentityResponse r = sts.getCallerIdentity();
      caller = new CallerIdentity(r.arn(), r.account());
      callerFailure = null;
      return Optional.of(caller);
    } catch (SdkException e) {
      callerFailedAtNanos = System.nanoTime();
      callerFailure = AwsAuthFailures.shortReason(e);
      LOG.debug("STS GetCallerIdentity failed for {}", source(), e);
      return Optional.empty();
    }
  }

  /** Why the last lookup failed (null: it did not). */
  public synchronized String lookupFailure() {
    return callerFailure;
  }

  private static AwsCredentialsProvider baseProvider(StaticKeys keys) {
    if (keys == null) {
      // A provider of our own (not the SDK's shared singleton): its chain remembers the source that
      // answered, and that must not leak between identities.
      return DefaultCredentialsProvider.builder().build();
    }
    return StaticCredentialsProvider.create(
        keys.sessionToken() == null
            ? AwsBasicCredentials.create(keys.accessKeyId(), keys.secretAccessKey())
            : AwsSessionCredentials.create(
                keys.accessKeyId(), keys.secretAccessKey(), keys.sessionToken()));
  }

  private static StsClient stsClient(
      AwsIdentitySettings s,
      AwsCredentialsProvider credentials,
      Duration attemptTimeout,
      Duration callTimeout) {
    var builder =
        StsClient.builder()
            .region(Region.of(s.stsRegion()))
            .credentialsProvider(credentials)
            // Explicit, because several HTTP implementations may be on a Connect worker's
            // class path.
            .httpClientBuilder(ApacheHttpClient.builder())
            .overrideConfiguration(
                o -> o.apiCallAttemptTimeout(attemptTimeout).apiCallTimeout(callTimeout));
    if (s.stsEndpoint() != null) {
      builder.endpointOverride(s.stsEndpoint());
    }
    return builder.build();
  }

  private RefreshingCredentials.Session assumeRole(StsClient roleSts, Role role) {
    try {
      AssumeRoleResponse r =
          roleSts.assumeRole(
              b -> {
                b.roleArn(role.arn())
                    .roleSessionName(role.sessionName())
                    .durationSeconds(role.durationSeconds());
                if (role.externalId() != null) {
                  b.externalId(role.externalId());
                }
              });
      Credentials c = r.credentials();
      return new RefreshingCredentials.Session(
          AwsSessionCredentials.builder()
              .accessKeyId(c.accessKeyId())
              .secretAccessKey(c.secretAccessKey())
              .sessionToken(c.sessionToken())
              .expirationTime(c.expiration())
              .providerName("AssumeRole")
              .build(),
          c.expiration(),
          r.assumedRoleUser() == null ? role.arn() : r.assumedRoleUser().arn());
    } catch (SdkException e) {
      throw new AwsCredentialsException(AwsAuthFailures.assumeRoleFailed(role, base, e), e);
    }
  }

  /** The STS answer's error code, if it is one. */
  static String errorCode(Throwable e) {
    return e instanceof AwsServiceException ase && ase.awsErrorDetails() != null
        ? ase.awsErrorDetails().errorCode()
        : null;
  }

  @Override
  public String toString() {
    return "AwsIdentity[" + source() + "]";
  }
}
