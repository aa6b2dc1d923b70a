package io.kcdelta.it;

import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import io.kcdelta.logstore.S3ConditionalLogStore;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once on s3a:// with the s3-conditional log store (no DynamoDB commits) when a worker in
 * its own JVM is killed with SIGKILL mid-stream and comes back. The connector still names the
 * DynamoDB table of the other fault ITs: the store's mixing check reads it and finds no entries.
 */
class S3ConditionalFaultsIT extends AbstractFaultIT {

  @Override
  Map<String, String> logStoreConfig() {
    return Map.of("delta.log.store", "s3-conditional");
  }

  @Override
  Configuration readerConf() {
    Configuration conf = s3.hadoopConf();
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, S3ConditionalLogStore.class.getName());
    // Its mixing check asks dynalite, not AWS.
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, DDB_TABLE);
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, dynamo.endpoint().toString());
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    return conf;
  }

  @Test
  @Tag(S3DynamoDbFaultsIT.HEAVY)
  void workerKilledMidStreamAndBack() throws Exception {
    workerKilledScenario();
  }
}
