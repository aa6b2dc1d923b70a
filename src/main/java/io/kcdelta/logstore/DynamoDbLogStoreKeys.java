package io.kcdelta.logstore;

/**
 * Every Hadoop {@code Configuration} key that {@link DynamoDbLogStore} reads, in one place so the
 * connector's config code can map its own settings onto them.
 *
 * <p>Where Delta's {@code S3DynamoDBLogStore} already defines a key, we use Delta's name, so a
 * Hadoop configuration written for Spark works here unchanged (Delta also accepts each of them with
 * a {@code spark.} prefix; so do we). Keys Delta lacks live under {@link #PREFIX}.
 *
 * <p>Suggested mapping of the connector's settings:
 *
 * <pre>
 *   dynamodb.table.name        → {@link #TABLE_NAME}
 *   dynamodb.region            → {@link #REGION}
 *   dynamodb.endpoint          → {@link #ENDPOINT}
 *   dynamodb.table.auto.create → {@link #TABLE_AUTO_CREATE}
 *   aws.* credentials          → S3A's fs.s3a.access.key etc. and kcdelta.aws.* (io.kcdelta.aws),
 *                                which this store reads too, so it shares S3A's provider
 *   (and for s3a:// tables)    → {@link #LOG_STORE_S3A_IMPL} = io.kcdelta.logstore.DynamoDbLogStore
 * </pre>
 */
public final class DynamoDbLogStoreKeys {

  /**
   * The LogStore of a path's scheme, by the key Delta's writers use ({@code
   * delta.logStore.<scheme>.impl}): the connector's Delta layer reads it, and hands the same class
   * to Delta Kernel for its own reads and checkpoints.
   */
  public static final String LOG_STORE_S3A_IMPL = "delta.logStore.s3a.impl";

  /**
   * Same for {@code s3://} paths; note that s3:// and s3a:// tables never exclude each other
   * (different DynamoDB hash keys).
   */
  public static final String LOG_STORE_S3_IMPL = "delta.logStore.s3.impl";

  private static final String DELTA_PREFIX = "io.delta.storage.S3DynamoDBLogStore.";

  /** Delta's own keys may also be given with this prefix (as Spark passes them through). */
  public static final String SPARK_PREFIX = "spark.";

  /**
   * DynamoDB table holding one item per commit; shared with Spark writers. Default {@value
   * #DEFAULT_TABLE_NAME}.
   */
  public static final String TABLE_NAME = DELTA_PREFIX + "ddb.tableName";

  public static final String DEFAULT_TABLE_NAME = "delta_log";

  /**
   * AWS region of the DynamoDB table. Default: {@link #FS_S3A_ENDPOINT_REGION} if set, else {@value
   * #DEFAULT_REGION} (Delta's default).
   */
  public static final String REGION = DELTA_PREFIX + "ddb.region";

  public static final String DEFAULT_REGION = "us-east-1";

  /**
   * Seconds a completed item lives before DynamoDB TTL may delete it (plain number or Hadoop
   * duration like {@code 1d}).
   */
  public static final String TTL_SECONDS = DELTA_PREFIX + "ddb.ttl";

  public static final long DEFAULT_TTL_SECONDS = 86_400L;

  /** Prefix of the keys Delta's store does not have. */
  public static final String PREFIX = "kcdelta.logstore.dynamodb.";

  /**
   * Endpoint override, e.g. {@code http://127.0.0.1:4567}. Default: the AWS endpoint of the region.
   */
  public static final String ENDPOINT = PREFIX + "endpoint";

  /**
   * Create the table (PAY_PER_REQUEST, TTL on expireTime) when it is missing. Default {@value
   * #DEFAULT_TABLE_AUTO_CREATE}.
   */
  public static final String TABLE_AUTO_CREATE = PREFIX + "table.auto.create";

  public static final boolean DEFAULT_TABLE_AUTO_CREATE = true;

  /**
   * Static credentials for DynamoDB only. If absent, {@link #FS_S3A_ACCESS_KEY}/{@link
   * #FS_S3A_SECRET_KEY} (and {@code fs.s3a.session.token}) are used when set, else the SDK v2
   * default credential chain; the roles of {@code kcdelta.aws.*} apply on top (see {@code
   * io.kcdelta.aws.AwsIdentitySettings#forDynamoDb}). Read through {@code
   * Configuration.getPassword}, so Hadoop credential providers work too.
   */
  public static final String ACCESS_KEY = PREFIX + "access.key";

  public static final String SECRET_KEY = PREFIX + "secret.key";

  /*
   * Retry limits of one DynamoDB call (GetItem, PutItem, Query, DescribeTable, CreateTable). A call
   * retries passing failures (throttling, 5xx, timeouts, network errors) until it has made
   * RETRY_MAX_ATTEMPTS attempts or until another attempt could not end within CALL_TIMEOUT_MS,
   * whichever comes first. With the defaults a call blocks at most 25 s; the writer then retries the
   * commit within delta.commit.retry.timeout.ms without blocking Connect's poll loop.
   */

  /**
   * Attempts per DynamoDB call on throttling, 5xx and timeouts (the first try included). Default
   * {@value #DEFAULT_RETRY_MAX_ATTEMPTS}.
   */
  public static final String RETRY_MAX_ATTEMPTS = PREFIX + "retry.max.attempts";

  public static final int DEFAULT_RETRY_MAX_ATTEMPTS = 8;

  /**
   * First backoff delay in ms; doubles per attempt up to {@link #RETRY_MAX_DELAY_MS}, with jitter.
   */
  public static final String RETRY_BASE_DELAY_MS = PREFIX + "retry.base.delay.ms";

  public static final long DEFAULT_RETRY_BASE_DELAY_MS = 50L;
  public static final String RETRY_MAX_DELAY_MS = PREFIX + "retry.max.delay.ms";
  public static final long DEFAULT_RETRY_MAX_DELAY_MS = 5_000L;

  /**
   * Timeout of one HTTP attempt in ms; a timed-out attempt counts as transient. Default {@value
   * #DEFAULT_ATTEMPT_TIMEOUT_MS}: DynamoDB answers in milliseconds, so an attempt this slow is a
   * lost connection, and waiting longer only delays the retry.
   */
  public static final String ATTEMPT_TIMEOUT_MS = PREFIX + "attempt.timeout.ms";

  public static final long DEFAULT_ATTEMPT_TIMEOUT_MS = 5_000L;

  /**
   * Longest time one DynamoDB call may take, all attempts and backoff included, in ms. The table
   * check at first use (DescribeTable, CreateTable, the wait until ACTIVE) keeps the same bound as
   * a whole. Raised to {@link #ATTEMPT_TIMEOUT_MS} if set below it. Default {@value
   * #DEFAULT_CALL_TIMEOUT_MS}: well below Connect's max.poll.interval.ms (300 s).
   */
  public static final String CALL_TIMEOUT_MS = PREFIX + "call.timeout.ms";

  public static final long DEFAULT_CALL_TIMEOUT_MS = 25_000L;

  /** s3a keys used as the credential fallback and the region fallback. */
  public static final String FS_S3A_ACCESS_KEY = "fs.s3a.access.key";

  public static final String FS_S3A_SECRET_KEY = "fs.s3a.secret.key";
  public static final String FS_S3A_ENDPOINT_REGION = "fs.s3a.endpoint.region";

  private DynamoDbLogStoreKeys() {}
}
