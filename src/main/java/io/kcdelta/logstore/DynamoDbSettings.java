package io.kcdelta.logstore;

import static io.kcdelta.logstore.DynamoDbLogStoreKeys.*;

import io.kcdelta.aws.AwsIdentitySettings;
import io.kcdelta.retry.Backoff;
import io.kcdelta.retry.RetryPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * What {@link DynamoDbLogStore} needs from the Hadoop configuration, validated once.
 *
 * @param endpoint null means the AWS endpoint of {@code region}
 * @param identity who DynamoDB acts as: the log store's own static keys, else S3A's, else the SDK's
 *     default chain, with the connector's roles on top ({@link AwsIdentitySettings#forDynamoDb})
 */
record DynamoDbSettings(
    String tableName,
    String region,
    URI endpoint,
    long ttlSeconds,
    boolean autoCreate,
    AwsIdentitySettings identity,
    int maxAttempts,
    Duration retryBaseDelay,
    Duration retryMaxDelay,
    Duration attemptTimeout,
    Duration callTimeout) {

  static DynamoDbSettings from(Configuration conf) {
    String table = get(conf, TABLE_NAME, DEFAULT_TABLE_NAME);
    String region = get(conf, REGION, conf.getTrimmed(FS_S3A_ENDPOINT_REGION, DEFAULT_REGION));
    String endpoint = conf.getTrimmed(ENDPOINT, "");
    long ttl = timeSeconds(conf, TTL_SECONDS, DEFAULT_TTL_SECONDS);
    int attempts = conf.getInt(RETRY_MAX_ATTEMPTS, DEFAULT_RETRY_MAX_ATTEMPTS);
    long base = conf.getLong(RETRY_BASE_DELAY_MS, DEFAULT_RETRY_BASE_DELAY_MS);
    long max = conf.getLong(RETRY_MAX_DELAY_MS, DEFAULT_RETRY_MAX_DELAY_MS);
    long attemptTimeout = conf.getLong(ATTEMPT_TIMEOUT_MS, DEFAULT_ATTEMPT_TIMEOUT_MS);
    long callTimeout = conf.getLong(CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS);
    require(!table.isEmpty(), TABLE_NAME + " must not be empty");
    require(ttl > 0, TTL_SECONDS + " must be > 0, got " + ttl);
    require(attempts >= 1, RETRY_MAX_ATTEMPTS + " must be >= 1, got " + attempts);
    require(
        base >= 0 && max >= base,
        RETRY_BASE_DELAY_MS + " and " + RETRY_MAX_DELAY_MS + " must satisfy 0 <= base <= max");
    require(attemptTimeout > 0, ATTEMPT_TIMEOUT_MS + " must be > 0, got " + attemptTimeout);
    require(callTimeout > 0, CALL_TIMEOUT_MS + " must be > 0, got " + callTimeout);
    URI endpointUri = endpoint.isEmpty() ? null : parseEndpoint(endpoint);
    return new DynamoDbSettings(
        table,
        region,
        endpointUri,
        ttl,
        conf.getBoolean(TABLE_AUTO_CREATE, DEFAULT_TABLE_AUTO_CREATE),
        AwsIdentitySettings.forDynamoDb(
            conf, AwsIdentitySettings.staticKeys(conf, ACCESS_KEY, SECRET_KEY, null)),
        attempts,
        Duration.ofMillis(base),
        Duration.ofMillis(max),
        Duration.ofMillis(attemptTimeout),
        // A call always gets one whole attempt; a configuration that raised only the attempt
        // timeout (before the call timeout existed) keeps working.
        Duration.ofMillis(Math.max(callTimeout, attemptTimeout)));
  }

  /** The limits of one DynamoDB call. */
  RetryPolicy retryPolicy() {
    return new RetryPolicy(
        maxAttempts, callTimeout, attemptTimeout, new Backoff(retryBaseDelay, retryMaxDelay));
  }

  /**
   * "http://127.0.0.1:4567/eu-west-1" style label for error messages; never contains credentials.
   */
  String describeService() {
    return (endpoint == null ? "the AWS endpoint" : endpoint.toString()) + "/" + region;
  }

  private static String get(Configuration conf, String key, String dflt) {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      v = conf.getTrimmed(SPARK_PREFIX + key);
    }
    return v == null || v.isEmpty() ? dflt : v;
  }

  private static long timeSeconds(Configuration conf, String key, long dflt) {
    String k = conf.get(key) != null ? key : SPARK_PREFIX + key;
    return conf.getTimeDuration(k, dflt, TimeUnit.SECONDS);
  }

  private static URI parseEndpoint(String endpoint) {
    URI uri;
    try {
      uri = URI.create(endpoint);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ENDPOINT + " is not a URI: " + endpoint, e);
    }
    require(
        uri.getScheme() != null && uri.getHost() != null,
        ENDPOINT + " must look like http(s)://host[:port], got " + endpoint);
    require(uri.getUserInfo() == null, ENDPOINT + " must not contain user info");
    return uri;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
