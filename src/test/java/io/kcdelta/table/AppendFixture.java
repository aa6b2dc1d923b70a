package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.parquet.JsonText;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/** A partitioned file table whose log store is listed as shared, and appends to it. */
final class AppendFixture {
  static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            new StructField("id", new LongType(), false), new StructField("p", new StringType())
          });

  final Path root;
  final Configuration conf = new Configuration(false);

  AppendFixture(java.nio.file.Path dir, Map<String, String> tableConfiguration) {
    root = new Path(dir.toUri());
    conf.set("delta.logStore.file.impl", ExclusiveLocalLogStore.class.getName());
    conf.set(HadoopConfigurationFactory.SHARED_LOG_STORES, ExclusiveLocalLogStore.class.getName());
    OptimisticTransaction txn = newLog().startTransaction();
    txn.updateMetadata(
        Metadata.builder()
            .schema(SCHEMA)
            .partitionColumns(List.of("p"))
            .configuration(tableConfiguration)
            .build());
    txn.commit(List.of(), new Operation(Operation.Name.CREATE_TABLE), "test");
    if (!Files.isDirectory(dir.resolve("_delta_log"))) {
      throw new IllegalStateException("no table at " + dir);
    }
  }

  /** A DeltaLog of its own, as another writer of the table would have. */
  DeltaLog newLog() {
    return DeltaLog.forTable(conf, root);
  }

  /** One file in partition {@code p} (null: the null partition) and the txn of {@code appId}. */
  static List<Action> append(String file, String p, String appId, long txnVersion) {
    Map<String, String> partition = new HashMap<>();
    partition.put("p", p);
    List<Action> actions = new ArrayList<>();
    actions.add(
        AddFile.builder(file, partition, 1234, 1_700_000_000_000L, true)
            .stats(JsonText.quote("{\"numRecords\":3,\"minValues\":{\"id\":1}}"))
            .build());
    actions.add(new SetTransaction(appId, txnVersion, Optional.of(1_700_000_000_001L)));
    return actions;
  }

  /** The sink's operation for a table partitioned by p. */
  static Operation write() {
    Map<String, String> params = new HashMap<>();
    params.put("mode", JsonText.quote("Append"));
    params.put("partitionBy", JsonText.quote("[\"p\"]"));
    return new Operation(Operation.Name.WRITE, params);
  }

  /** Commits through Delta Standalone, as a foreign writer would. */
  long commitElsewhere(List<? extends Action> actions) {
    return newLog().startTransaction().commit(actions, write(), "foreign").getVersion();
  }
}
