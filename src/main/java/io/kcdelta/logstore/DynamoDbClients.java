package io.kcdelta.logstore;

import io.kcdelta.aws.AwsIdentities;
import io.kcdelta.aws.AwsIdentitySettings;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One DynamoDB client per JVM and distinct connection settings.
 *
 * <p>Delta Kernel builds a new LogStore for every call that lists or checkpoints a log; a client
 * per store would mean a connection pool per table handle. Clients live as long as the JVM (a
 * Connect worker reuses them across task restarts), so they are never closed.
 */
final class DynamoDbClients {

  private static final ConcurrentMap<Key, DynamoDbClient> CLIENTS = new ConcurrentHashMap<>();

  /** Only what changes how the client connects; table name, TTL and retry budget do not. */
  private record Key(
      String region, URI endpoint, AwsIdentitySettings identity, Duration attemptTimeout) {
    @Override
    public String toString() {
      // The identity's record would not show secrets either; the endpoint is what tells clients
      // apart in a log line.
      return "Key[" + endpoint + "/" + region + "]";
    }
  }

  private DynamoDbClients() {}

  static DynamoDbClient forSettings(DynamoDbSettings s) {
    return CLIENTS.computeIfAbsent(
        new Key(s.region(), s.endpoint(), s.identity(), s.attemptTimeout()),
        DynamoDbClients::build);
  }

  private static DynamoDbClient build(Key key) {
    var builder =
        DynamoDbClient.builder()
            .region(Region.of(key.region()))
            // The connector's one provider for this identity, shared with S3A: a role is assumed
            // and renewed once per JVM, not per client.
            .credentialsProvider(AwsIdentities.of(key.identity()).provider())
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
}
