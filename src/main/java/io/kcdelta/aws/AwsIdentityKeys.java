package io.kcdelta.aws;

/**
 * The Hadoop {@code Configuration} keys of the AWS identity. Static keys use S3A's own names, so a
 * Hadoop configuration written for S3A (and {@code hadoop.fs.s3a.*} overrides) means the same here;
 * they are read through {@code Configuration.getPassword}, so Hadoop credential providers work. The
 * rest live under {@link #PREFIX}.
 */
public final class AwsIdentityKeys {

  public static final String PREFIX = "kcdelta.aws.";

  public static final String ACCESS_KEY = "fs.s3a.access.key";
  public static final String SECRET_KEY = "fs.s3a.secret.key";
  public static final String SESSION_TOKEN = "fs.s3a.session.token";

  /** Role assumed on top of the base credentials, for S3 and DynamoDB. */
  public static final String ROLE_ARN = PREFIX + "assume.role.arn";

  public static final String ROLE_SESSION_NAME = PREFIX + "assume.role.session.name";
  public static final String ROLE_EXTERNAL_ID = PREFIX + "assume.role.external.id";
  public static final String ROLE_DURATION_SECONDS = PREFIX + "assume.role.duration.seconds";
  public static final int DEFAULT_ROLE_DURATION_SECONDS = 3600;

  /** Default session name outside the connector (a Spark job using the log store). */
  public static final String DEFAULT_ROLE_SESSION_NAME = "kcdelta";

  /** Role assumed from the connector's identity for DynamoDB only. */
  public static final String DYNAMODB_ROLE_ARN = PREFIX + "dynamodb.assume.role.arn";

  public static final String DYNAMODB_ROLE_EXTERNAL_ID =
      PREFIX + "dynamodb.assume.role.external.id";

  public static final String STS_REGION = PREFIX + "sts.region";
  public static final String STS_ENDPOINT = PREFIX + "sts.endpoint";

  /**
   * Whether the identity is looked up with STS GetCallerIdentity to be told. The connector sets it
   * unless S3 is a non-AWS store reached with static keys and no STS endpoint is known: there the
   * keys are not AWS keys, and an STS call would only wait for a timeout.
   */
  public static final String LOOKUP = PREFIX + "identity.lookup";

  /** S3A's setting naming its credentials providers. */
  public static final String S3A_CREDENTIALS_PROVIDER = "fs.s3a.aws.credentials.provider";

  private AwsIdentityKeys() {}
}
