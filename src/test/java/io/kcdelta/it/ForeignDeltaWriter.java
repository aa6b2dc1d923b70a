package io.kcdelta.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.it.infra.S3Proxy;
import io.kcdelta.logstore.DynamoDbLogStore;
import io.kcdelta.logstore.DynamoDbLogStoreKeys;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.ParquetFileWriter;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Another writer of the connector's table, run in its own JVM: appends {@link OrderRecords} rows
 * with ids {@code [idFrom, idFrom + commits * rowsPerCommit)} through Delta Standalone and the
 * DynamoDB log store, one commit at a time, each carrying the txn {@code appId} at the commit's
 * index (so a lost commit shows as a gap). Resumes after its own last durable commit. Prints one
 * line per commit.
 *
 * <p>Args: tablePath s3Endpoint dynamoEndpoint dynamoTable appId idFrom commits rowsPerCommit
 * pauseMs
 */
public final class ForeignDeltaWriter {

  public static void main(String[] args) throws Exception {
    String tablePath = args[0];
    Configuration conf = new Configuration();
    S3Proxy.applyTo(conf, URI.create(args[1]));
    conf.set(DynamoDbLogStoreKeys.LOG_STORE_S3A_IMPL, DynamoDbLogStore.class.getName());
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, args[2]);
    conf.set(DynamoDbLogStoreKeys.REGION, S3Proxy.REGION);
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, args[3]);
    String appId = args[4];
    long idFrom = Long.parseLong(args[5]);
    int commits = Integer.parseInt(args[6]);
    int rowsPerCommit = Integer.parseInt(args[7]);
    long pauseMs = Long.parseLong(args[8]);

    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), false);
    ObjectMapper json = new ObjectMapper();
    DeltaLog log = DeltaLog.forTable(conf, tablePath);
    long deadline = System.currentTimeMillis() + 120_000;
    while (log.update().getVersion() < 0) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("table " + tablePath + " was not created within 120 s");
      }
      Thread.sleep(200);
    }
    for (int i = 0; i < commits; i++) {
      OptimisticTransaction txn = log.startTransaction();
      long done = txn.txnVersion(appId);
      if (done >= i) {
        continue;
      }
      Map<String, List<Struct>> byRegion = new TreeMap<>();
      long from = idFrom + (long) i * rowsPerCommit;
      for (long id = from; id < from + rowsPerCommit; id++) {
        SchemaAndValue row = converter.toConnectData("foreign", OrderRecords.json(id));
        byRegion
            .computeIfAbsent(OrderRecords.region(id), r -> new ArrayList<>())
            .add((Struct) row.value());
      }
      List<Action> actions = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (Map.Entry<String, List<Struct>> e : byRegion.entrySet()) {
        String relative = "region=" + e.getKey() + "/foreign-" + UUID.randomUUID() + ".parquet";
        Path file = new Path(tablePath + "/" + relative);
        DataFile data;
        try (ParquetFileWriter writer =
            new ParquetFileWriter(
                conf,
                file,
                e.getValue().get(0).schema(),
                Set.of("region"),
                CompressionCodecName.SNAPPY)) {
          for (Struct s : e.getValue()) {
            writer.write(s);
          }
          data = writer.finish();
        }
        actions.add(
            AddFile.builder(relative, Map.of("region", e.getKey()), data.sizeBytes(), now, true)
                .stats(json.writeValueAsString(data.statsJson()))
                .build());
      }
      actions.add(new SetTransaction(appId, i, Optional.of(now)));
      long version =
          txn.commit(actions, new Operation(Operation.Name.WRITE), "foreign-writer").getVersion();
      System.out.println("COMMITTED " + i + " AT VERSION " + version);
      Thread.sleep(pauseMs);
    }
    System.out.println("DONE");
    System.exit(0);
  }
}
