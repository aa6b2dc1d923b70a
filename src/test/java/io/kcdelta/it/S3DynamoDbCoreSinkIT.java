package io.kcdelta.it;

import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The core test on an s3a:// table (s3proxy) with commits coordinated through DynamoDB (dynalite).
 */
class S3DynamoDbCoreSinkIT extends AbstractCoreSinkIT {
  private S3Proxy s3;
  private Dynalite dynamo;

  @Override
  void startStorage() {
    s3 = S3Proxy.inMemory();
    dynamo = Dynalite.inMemory();
  }

  @Override
  void stopStorage() {
    if (dynamo != null) {
      dynamo.close();
    }
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
    Map<String, String> c = new HashMap<>();
    c.putAll(s3.connectorConfig());
    c.putAll(dynamo.connectorConfig("delta_log_it"));
    return c;
  }

  @Override
  Configuration readerConf() {
    Configuration conf = s3.hadoopConf();
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, "delta_log_it");
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, dynamo.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    return conf;
  }
}
