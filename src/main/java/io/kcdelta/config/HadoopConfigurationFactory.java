package io.kcdelta.config;

import io.kcdelta.aws.AwsIdentities;
import io.kcdelta.aws.AwsIdentity;
import io.kcdelta.aws.AwsIdentityKeys;
import io.kcdelta.aws.IdentityScopedS3AFileSystem;
import io.kcdelta.aws.S3aCredentialsProvider;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import io.kcdelta.logstore.LocalFileLogStore;
import io.kcdelta.logstore.S3ConditionalLogStore;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Translates the connector's settings into the Hadoop Configuration that the Delta layer (and Delta
 * Kernel), Parquet, S3A and the log store read. {@code hadoop.<key>} settings are applied last, so
 * they win.
 */
public final class HadoopConfigurationFactory {

  private HadoopConfigurationFactory() {}

  public static Configuration create(DeltaSinkConfig config) {
    Configuration conf = new Configuration();
    // Connect runs the task with the plugin's class loader as context loader; Hadoop resolves
    // FileSystem and LogStore classes by name through the Configuration's loader.
    conf.setClassLoader(HadoopConfigurationFactory.class.getClassLoader());
    applyS3a(config, conf);
    applyLogStore(config, conf);
    for (Map.Entry<String, Object> e : config.hadoopOverrides().entrySet()) {
      conf.set(e.getKey(), String.valueOf(e.getValue()));
    }
    return conf;
  }

  /**
   * Who S3 and DynamoDB act as for this connector config, e.g. "S3 and DynamoDB act as
   * arn:aws:sts::…:assumed-role/… (role … assumed from the AWS default credential chain)"; looked
   * up with STS when {@code conf} says so (once per identity and JVM). Null for a table that is not
   * on S3.
   */
  public static String awsIdentity(DeltaSinkConfig config, Configuration conf) {
    if (!"s3a".equals(DeltaSinkConfig.schemeOf(config.tablePathTemplate()))) {
      return null;
    }
    AwsIdentity dynamoDb =
        DeltaSinkConfig.LOG_STORE_DYNAMODB.equals(config.logStore())
            ? DynamoDbLogStore.identity(conf)
            : null;
    return AwsIdentities.describeServices(conf, dynamoDb);
  }

  private static void applyS3a(DeltaSinkConfig config, Configuration conf) {
    // S3A's own defaults retry an unreachable S3 for minutes per call (fs.s3a.retry.limit=7 with
    // doubling intervals, each try made of fs.s3a.attempts.maximum=5 SDK attempts, each allowed a
    // 30 s
    // connect and a 60 s request). A task blocked that long never reaches its
    // delta.commit.retry.timeout.ms
    // check: it looks hung, and Connect may evict it from the consumer group. Let one call give up
    // well
    // within Connect's max.poll.interval.ms (300 s); the task's retry budget decides how long to
    // keep
    // trying, without blocking. Worst case of one S3A metadata call (HEAD, LIST, GET, COPY) with
    // the
    // values below: 3 tries x 30 s (the request timeout, which S3A also sets as the SDK's
    // whole-call
    // timeout, so the SDK attempts of one try share it) + 1.5 s of pauses = 91.5 s; a refused
    // connection
    // fails in a few seconds. S3A raises any timeout below 15 s to 15 s. Throttling has its own
    // policy, exponential
    // from 500 ms per retry: 4 retries sleep at most ~22 s, S3A's default of 20 could sleep for
    // days.
    // Data uploads keep S3A's fs.s3a.connection.part.upload.timeout (15 min per attempt): a 64 MB
    // part
    // on a slow link needs it. hadoop.fs.s3a.* settings still override all of these.
    conf.setInt("fs.s3a.retry.limit", 2);
    conf.set("fs.s3a.retry.interval", "500ms");
    conf.setInt("fs.s3a.attempts.maximum", 2);
    conf.set("fs.s3a.connection.establish.timeout", "15s");
    conf.set("fs.s3a.connection.request.timeout", "30s");
    conf.setInt("fs.s3a.retry.throttle.limit", 4);
    if (config.s3Endpoint() != null) {
      conf.set("fs.s3a.endpoint", config.s3Endpoint());
    }
    if (config.s3Region() != null) {
      conf.set("fs.s3a.endpoint.region", config.s3Region());
    }
    conf.setBoolean("fs.s3a.path.style.access", config.s3PathStyleAccess());
    applyIdentity(config, conf);
  }

  /**
   * One identity for S3 and DynamoDB: S3A signs through our provider, which the DynamoDB log store
   * shares (same settings, same provider object). S3A's own default chain lacks the web identity
   * source of the SDK's (IRSA), so S3 and DynamoDB could otherwise act as two identities. S3A file
   * systems are kept per identity, not only per bucket (see IdentityScopedS3AFileSystem).
   */
  private static void applyIdentity(DeltaSinkConfig config, Configuration conf) {
    conf.set("fs.s3a.impl", IdentityScopedS3AFileSystem.class.getName());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set(AwsIdentityKeys.S3A_CREDENTIALS_PROVIDER, S3aCredentialsProvider.class.getName());
    if (config.awsAccessKeyId() != null && config.awsSecretAccessKey() != null) {
      conf.set(AwsIdentityKeys.ACCESS_KEY, config.awsAccessKeyId());
      conf.set(AwsIdentityKeys.SECRET_KEY, config.awsSecretAccessKey().value());
      if (config.awsSessionToken() != null) {
        conf.set(AwsIdentityKeys.SESSION_TOKEN, config.awsSessionToken().value());
      }
    }
    boolean roles = false;
    if (config.assumeRoleArn() != null) {
      roles = true;
      conf.set(AwsIdentityKeys.ROLE_ARN, config.assumeRoleArn());
      setIfPresent(conf, AwsIdentityKeys.ROLE_EXTERNAL_ID, config.assumeRoleExternalId());
    }
    if (config.dynamoDbAssumeRoleArn() != null) {
      roles = true;
      conf.set(AwsIdentityKeys.DYNAMODB_ROLE_ARN, config.dynamoDbAssumeRoleArn());
      setIfPresent(
          conf, AwsIdentityKeys.DYNAMODB_ROLE_EXTERNAL_ID, config.dynamoDbAssumeRoleExternalId());
    }
    conf.set(AwsIdentityKeys.ROLE_SESSION_NAME, config.assumeRoleSessionName());
    conf.setInt(AwsIdentityKeys.ROLE_DURATION_SECONDS, config.assumeRoleDurationSeconds());
    conf.set(AwsIdentityKeys.STS_REGION, config.stsRegion());
    setIfPresent(conf, AwsIdentityKeys.STS_ENDPOINT, config.stsEndpoint());
    // Static keys for an S3-compatible store are no AWS keys: asking STS who they are would only
    // wait for a timeout or an error at every task start.
    boolean stsKnown = config.stsEndpoint() != null || sdkStsEndpoint() != null;
    conf.setBoolean(AwsIdentityKeys.LOOKUP, roles || stsKnown || config.s3Endpoint() == null);
  }

  /** The STS endpoint the AWS SDK takes from the environment, as for the web identity provider. */
  private static String sdkStsEndpoint() {
    for (String v :
        new String[] {
          System.getProperty("aws.endpointUrlSts"),
          System.getenv("AWS_ENDPOINT_URL_STS"),
          System.getProperty("aws.endpointUrl"),
          System.getenv("AWS_ENDPOINT_URL")
        }) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static void setIfPresent(Configuration conf, String key, String value) {
    if (value != null) {
      conf.set(key, value);
    }
  }

  private static void applyLogStore(DeltaSinkConfig config, Configuration conf) {
    String store = config.logStore();
    if (DeltaSinkConfig.LOG_STORE_FILESYSTEM.equals(store)) {
      // file:// tables: Delta's default for the scheme lets two writers both take a version.
      conf.set(LocalFileLogStore.LOG_STORE_FILE_IMPL, LocalFileLogStore.class.getName());
      return;
    }
    boolean conditional = DeltaSinkConfig.LOG_STORE_S3_CONDITIONAL.equals(store);
    conf.set(
        DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL,
        conditional ? S3ConditionalLogStore.class.getName() : DynamoDbLogStore.class.getName());
    if (conditional) {
      conf.setBoolean(S3ConditionalLogStore.S3A_CONDITIONAL_ENABLED, true);
    }
    // s3-conditional reads the DynamoDB settings only to refuse a table the DynamoDB store uses.
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, config.dynamoDbTable());
    if (config.dynamoDbRegion() != null) {
      conf.set(DynamoDbLogStoreKeys.REGION, config.dynamoDbRegion());
    }
    if (config.dynamoDbEndpoint() != null) {
      conf.set(DynamoDbLogStoreKeys.ENDPOINT, config.dynamoDbEndpoint());
    }
    conf.setBoolean(
        DynamoDbLogStoreKeys.TABLE_AUTO_CREATE, !conditional && config.dynamoDbAutoCreate());
    // Credentials: none of the log store's own; it takes S3A's keys and the connector's roles, so
    // it resolves to the very provider S3A uses.
  }
}
