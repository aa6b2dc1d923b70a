package io.kcdelta.it;

import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import io.kcdelta.logstore.S3ConditionalLogStore;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The core test on an s3a:// table (s3proxy) whose commits are S3 conditional writes: {@code
 * delta.log.store=s3-conditional}, no DynamoDB at all (its mixing check finds none reachable).
 */
class S3ConditionalCoreSinkIT extends AbstractCoreSinkIT {
  private S3Proxy s3;

  @Override
  void startStorage() {
    s3 = S3Proxy.inMemory();
  }

  @Override
  void stopStorage() {
    if (s3 != null) {
      s3.close();
    }
  }

  @Override
  String tablePath() {
    return s3.uri("warehouse/orders");
  }

  @Override
  Map<String, String> storageConfig() {
    Map<String, String> c = new HashMap<>(s3.connectorConfig());
    c.put("delta.log.store", "s3-conditional");
    // Nothing listens there: the mixing check must pass quickly when DynamoDB is out of reach.
    c.put("dynamodb.endpoint", "http://127.0.0.1:9");
    return c;
  }

  @Override
  Configuration readerConf() {
    Configuration conf = s3.hadoopConf();
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, S3ConditionalLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:9");
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    return conf;
  }
}
