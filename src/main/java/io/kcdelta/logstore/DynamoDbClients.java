package io.kcdelta.logstore;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One DynamoDB client per JVM and distinct connection settings.
 *
 * <p>Delta Standalone builds a new LogStore for every {@code DeltaLog} instance; a client per store
 * would mean a connection pool and credential refresher per table handle. Clients live as long as
 * the JVM (a Connect worker reuses them across task restarts), so they are never closed.
 */
final class DynamoDbClients {

  private static final ConcurrentMap<Key, DynamoDbClient> CLIENTS = new ConcurrentHashMap<>();

  /** Only what changes how the client connects; table name, TTL and retry budget do not. */
  private record Key(
      String region,
      URI endpoint,
      DynamoDbSettings.StaticCredentials credentials,
      Duration attemptTimeout) {}

  private DynamoDbClients() {}

  static DynamoDbClient forSettings(DynamoDbSettings s) {
    return CLIENTS.computeIfAbsent(
        new Key(s.region(), s.endpoint(), s.credentials(), s.attemptTimeout()),
        DynamoDbClients::build);
  }

  private static DynamoDbClient build(Key key) {
    var builder =
        DynamoDbClient.builder()
            .region(Region.of(key.region()))
            .credentialsProvider(credentials(key.credentials()))
            // Explicit, because several HTTP implementations may be on a Connect worker's
            // classpath.
            .httpClientBuilder(ApacheHttpClient.builder().maxConnections(64))
            .overrideConfiguration(
                o ->
                    o
                        // DynamoDbRetrier owns the retry budget, so its error message can say how
                        // many attempts were made and a conditional put's retry can be
                        // disambiguated.
                        .retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(key.attemptTimeout()));
    if (key.endpoint() != null) {
      builder.endpointOverride(key.endpoint());
    }
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(DynamoDbSettings.StaticCredentials c) {
    if (c == null) {
      return DefaultCredentialsProvider.builder().build();
    }
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(c.accessKeyId(), c.secretAccessKey()));
  }
}
