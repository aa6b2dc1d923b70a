package io.kcdelta.aws;

import static io.kcdelta.aws.AwsIdentityKeys.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * What an AWS identity is made of: base credentials (static keys, or the SDK's default chain when
 * {@code keys} is null), then the roles assumed one from the other, in order. Equal settings share
 * one provider in a JVM ({@link AwsIdentities}); {@link #toString} never shows a secret.
 *
 * @param stsRegion region of the STS client that assumes the roles and looks up the identity
 * @param stsEndpoint null: the SDK's endpoint for the region (and its AWS_ENDPOINT_URL_STS)
 */
public record AwsIdentitySettings(
    StaticKeys keys, List<Role> roles, String stsRegion, URI stsEndpoint) {

  public AwsIdentitySettings {
    roles = List.copyOf(roles);
    Objects.requireNonNull(stsRegion, "stsRegion");
  }

  /** Static keys; a session token makes them temporary (they never refresh). */
  public record StaticKeys(String accessKeyId, String secretAccessKey, String sessionToken) {
    public StaticKeys {
      Objects.requireNonNull(accessKeyId, "accessKeyId");
      Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    }

    @Override
    public String toString() {
      return "StaticKeys[accessKeyId="
          + accessKeyId
          + ", secretAccessKey=***"
          + (sessionToken == null ? "" : ", sessionToken=***")
          + "]";
    }
  }

  /** A role to assume; the external id is not a secret, but it is not told either. */
  public record Role(String arn, String sessionName, String externalId, int durationSeconds) {
    public Role {
      Objects.requireNonNull(arn, "arn");
      Objects.requireNonNull(sessionName, "sessionName");
    }

    @Override
    public String toString() {
      return "Role["
          + arn
          + ", session "
          + sessionName
          + (externalId == null ? "" : ", external id set")
          + "]";
    }
  }

  /** The identity S3 acts as: the base credentials and {@link AwsIdentityKeys#ROLE_ARN}. */
  public static AwsIdentitySettings forS3(Configuration conf) {
    return build(conf, staticKeys(conf, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN), false);
  }

  /**
   * The identity DynamoDB acts as: that of S3, or (when the log store has keys of its own) those
   * keys, then {@link AwsIdentityKeys#DYNAMODB_ROLE_ARN} on top when set.
   *
   * @param ownKeys the log store's own static keys (null: none)
   */
  public static AwsIdentitySettings forDynamoDb(Configuration conf, StaticKeys ownKeys) {
    StaticKeys keys =
        ownKeys != null ? ownKeys : staticKeys(conf, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN);
    return build(conf, keys, true);
  }

  private static AwsIdentitySettings build(Configuration conf, StaticKeys keys, boolean dynamoDb) {
    List<Role> roles = new ArrayList<>();
    String sessionName = trimmed(conf, ROLE_SESSION_NAME, DEFAULT_ROLE_SESSION_NAME);
    int duration = conf.getInt(ROLE_DURATION_SECONDS, DEFAULT_ROLE_DURATION_SECONDS);
    String arn = trimmed(conf, ROLE_ARN, null);
    if (arn != null) {
      roles.add(new Role(arn, sessionName, trimmed(conf, ROLE_EXTERNAL_ID, null), duration));
    }
    String dynamoDbArn = dynamoDb ? trimmed(conf, DYNAMODB_ROLE_ARN, null) : null;
    if (dynamoDbArn != null) {
      roles.add(
          new Role(
              dynamoDbArn, sessionName, trimmed(conf, DYNAMODB_ROLE_EXTERNAL_ID, null), duration));
    }
    String region = trimmed(conf, STS_REGION, null);
    if (region == null) {
      region = trimmed(conf, "fs.s3a.endpoint.region", "us-east-1");
    }
    String endpoint = trimmed(conf, STS_ENDPOINT, null);
    return new AwsIdentitySettings(
        keys, roles, region, endpoint == null ? null : URI.create(endpoint));
  }

  /** These settings without their last role: what that role is assumed from. */
  public AwsIdentitySettings base() {
    if (roles.isEmpty()) {
      throw new IllegalStateException("no role to take away from " + this);
    }
    return new AwsIdentitySettings(
        keys, roles.subList(0, roles.size() - 1), stsRegion, stsEndpoint);
  }

  /** The last role, null for the base credentials. */
  public Role role() {
    return roles.isEmpty() ? null : roles.get(roles.size() - 1);
  }

  /** Static keys from the named keys; null when neither is set. */
  public static StaticKeys staticKeys(
      Configuration conf, String accessKeyKey, String secretKeyKey, String tokenKey) {
    String access = password(conf, accessKeyKey);
    String secret = password(conf, secretKeyKey);
    if (access == null && secret == null) {
      return null;
    }
    // Half a pair is a mistake; falling back to the default chain would sign with other
    // credentials than the operator meant.
    if (access == null || secret == null) {
      throw new IllegalArgumentException(
          accessKeyKey + " and " + secretKeyKey + " must be set together");
    }
    return new StaticKeys(access, secret, tokenKey == null ? null : password(conf, tokenKey));
  }

  private static String password(Configuration conf, String key) {
    try {
      char[] value = conf.getPassword(key);
      if (value == null) {
        return null;
      }
      String s = new String(value).trim();
      return s.isEmpty() ? null : s;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read " + key + " from the Hadoop credential providers", e);
    }
  }

  private static String trimmed(Configuration conf, String key, String dflt) {
    String v = conf.getTrimmed(key);
    return v == null || v.isEmpty() ? dflt : v;
  }
}
