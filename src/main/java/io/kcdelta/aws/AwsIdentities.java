package io.kcdelta.aws;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The AWS identities of this JVM, one per distinct {@link AwsIdentitySettings}: the tasks of a
 * connector in a worker, S3A and the DynamoDB log store get the same provider, so a role is assumed
 * once, not per task, file system or table handle. Identities live as long as the JVM (a worker
 * keeps them across task restarts, as it keeps its DynamoDB and S3A clients).
 */
public final class AwsIdentities {

  private static final Map<AwsIdentitySettings, AwsIdentity> ALL = new HashMap<>();

  private AwsIdentities() {}

  /** The identity of these settings, made on first use. Does no I/O. */
  public static synchronized AwsIdentity of(AwsIdentitySettings settings) {
    AwsIdentity known = ALL.get(settings);
    if (known == null) {
      AwsIdentity base = settings.roles().isEmpty() ? null : of(settings.base());
      known = new AwsIdentity(settings, base);
      ALL.put(settings, known);
    }
    return known;
  }

  /** S3's identity in a Hadoop configuration made by the connector (or written for S3A). */
  public static AwsIdentity forS3(Configuration conf) {
    return of(AwsIdentitySettings.forS3(conf));
  }

  /**
   * Whether S3A signs with {@link #forS3}: false when {@code fs.s3a.aws.credentials.provider} names
   * other providers (a {@code hadoop.*} override), which this connector then does not know.
   */
  public static boolean s3UsesConnectorIdentity(Configuration conf) {
    String providers = conf.getTrimmed(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, "");
    return providers.equals(S3aCredentialsProvider.class.getName());
  }

  /**
   * The line that says who S3 and DynamoDB act as, e.g. "S3 and DynamoDB act as
   * arn:aws:sts::1:assumed-role/r/s (role arn:aws:iam::1:role/r assumed from the AWS default
   * credential chain)". Looks the identities up with STS when {@link AwsIdentityKeys#LOOKUP} says
   * so (once per identity and JVM).
   *
   * @param dynamoDb the DynamoDB identity, or null when the log store does not use DynamoDB
   */
  public static String describeServices(Configuration conf, AwsIdentity dynamoDb) {
    boolean lookup = conf.getBoolean(AwsIdentityKeys.LOOKUP, false);
    AwsIdentity s3 = s3UsesConnectorIdentity(conf) ? forS3(conf) : null;
    String s3Text =
        s3 != null
            ? describe(s3, lookup)
            : "the credentials providers of "
                + AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER
                + "="
                + conf.getTrimmed(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, "")
                + " (a hadoop.* override; not looked up)";
    if (dynamoDb == null) {
      return "S3 " + (s3 != null ? "acts as " : "uses ") + s3Text;
    }
    if (dynamoDb == s3) {
      return "S3 and DynamoDB act as " + s3Text;
    }
    return "S3 "
        + (s3 != null ? "acts as " : "uses ")
        + s3Text
        + "; DynamoDB acts as "
        + describe(dynamoDb, lookup);
  }

  /** "ARN (source)", or the source and why it could not be looked up. */
  public static String describe(AwsIdentity identity, boolean lookup) {
    if (!lookup) {
      // Without a lookup nothing may block: resolving the default chain can wait for instance
      // metadata.
      return identity.source();
    }
    // The bases first: a role's source then names who assumed it by ARN.
    for (AwsIdentity b = identity.base(); b != null; b = b.base()) {
      b.lookUp();
    }
    Optional<AwsIdentity.CallerIdentity> caller = identity.lookUp();
    if (caller.isPresent()) {
      return caller.get().arn() + " (" + identity.source() + ")";
    }
    return identity.source() + " (STS GetCallerIdentity failed: " + identity.lookupFailure() + ")";
  }
}
