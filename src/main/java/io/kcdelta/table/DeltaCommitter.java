package io.kcdelta.table;

import io.delta.standalone.CommitResult;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.exceptions.ConcurrentTransactionException;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.delta.standalone.types.StructType;
import io.kcdelta.parquet.JsonText;
import io.kcdelta.schema.SchemaEvolution;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns a {@link Batch} into one Delta commit, or refuses to when the table says another writer has
 * committed any of the batch's Kafka partitions since this task last did (fencing).
 *
 * <p>The check and the commit happen in one optimistic transaction: {@code txnVersion} registers
 * the appIds as read, so a concurrent commit touching them between the check and our commit makes
 * Delta Standalone throw {@link ConcurrentTransactionException} instead of committing.
 */
final class DeltaCommitter {

  static final String ENGINE_INFO = "kafka-connect-delta/" + Version.get();

  /** Conflicts (not failures) that a fresh transaction may resolve: concurrent metadata changes. */
  private static final int MAX_CONFLICT_RETRIES = 10;

  private final String appIdPrefix;
  private final SchemaEvolution.Mode evolution;

  DeltaCommitter(String appIdPrefix, SchemaEvolution.Mode evolution) {
    this.appIdPrefix = appIdPrefix;
    this.evolution = evolution;
  }

  String appId(TopicPartition tp) {
    return appIdPrefix + "-" + tp.topic() + "-" + tp.partition();
  }

  sealed interface Outcome permits Committed, Fenced, Deferred {}

  /**
   * The batch is durable in version {@code version} (-1: it was already durable from an earlier
   * attempt).
   */
  record Committed(long version) implements Outcome {}

  /**
   * Another writer owns some of the batch's partitions now; {@code versions} is what the table
   * holds.
   */
  record Fenced(Map<TopicPartition, Long> versions) implements Outcome {}

  /**
   * The batch has no rows (only tombstones or errant records) and the table does not exist yet:
   * there is no schema to create it with, so its offsets become durable with the first commit that
   * has rows.
   */
  record Deferred() implements Outcome {}

  /** The txn versions of these partitions as the table holds them now (-1: none). */
  Map<TopicPartition, Long> txnVersions(Table table, Iterable<TopicPartition> partitions) {
    return Unchecked.call(() -> readTxnVersions(table, partitions));
  }

  private Map<TopicPartition, Long> readTxnVersions(
      Table table, Iterable<TopicPartition> partitions) {
    OptimisticTransaction txn = table.state.log().startTransaction();
    table.refresh(txn.readVersion() < 0 ? null : txn.metadata());
    Map<TopicPartition, Long> versions = new HashMap<>();
    for (TopicPartition tp : partitions) {
      versions.put(tp, txn.txnVersion(appId(tp)));
    }
    return versions;
  }

  /**
   * @param expected per partition of the batch, the txn version this task resumed from or last
   *     committed
   */
  Outcome commit(Table table, Batch batch, Map<TopicPartition, Long> expected) {
    return Unchecked.call(() -> tryCommit(table, batch, expected));
  }

  private Outcome tryCommit(Table table, Batch batch, Map<TopicPartition, Long> expected) {
    for (int attempt = 1; ; attempt++) {
      OptimisticTransaction txn = table.state.log().startTransaction();
      Map<TopicPartition, Long> actual = new HashMap<>();
      for (TopicPartition tp : batch.lastOffsets().keySet()) {
        actual.put(tp, txn.txnVersion(appId(tp)));
      }
      if (!actual.equals(expected)) {
        // Our own earlier attempt may have landed although it reported a failure (e.g. a timeout
        // after DynamoDB accepted the entry): then the table holds exactly this batch's offsets.
        return actual.equals(batch.lastOffsets()) ? new Committed(-1) : new Fenced(actual);
      }
      if (batch.files().isEmpty() && txn.readVersion() < 0) {
        return new Deferred();
      }
      try {
        prepareMetadata(txn, batch);
        CommitResult result = txn.commit(actions(table, batch), operation(batch), ENGINE_INFO);
        return new Committed(result.getVersion());
      } catch (ConcurrentTransactionException e) {
        // A concurrent commit touched one of our appIds: the next round sees it and fences.
      } catch (DeltaConcurrentModificationException e) {
        if (attempt >= MAX_CONFLICT_RETRIES) {
          throw e;
        }
      }
    }
  }

  private void prepareMetadata(OptimisticTransaction txn, Batch batch) {
    if (batch.files().isEmpty()) {
      // Offsets only: no file was laid out by any schema or partitioning, so the table's stand.
      return;
    }
    if (txn.readVersion() < 0) {
      txn.updateMetadata(
          Metadata.builder()
              .schema(batch.schema())
              .partitionColumns(batch.partitionColumns())
              .createdTime(System.currentTimeMillis())
              .build());
      return;
    }
    Metadata current = txn.metadata();
    if (!current.getPartitionColumns().equals(batch.partitionColumns())) {
      throw new TableChangedException(
          "The partition columns of the table changed from "
              + batch.partitionColumns()
              + " to "
              + current.getPartitionColumns()
              + " while this task wrote files");
    }
    StructType merged = SchemaEvolution.evolve(current.getSchema(), batch.schema(), evolution);
    if (merged != current.getSchema()) {
      txn.updateMetadata(current.copyBuilder().schema(merged).build());
    }
  }

  private List<Action> actions(Table table, Batch batch) {
    long now = System.currentTimeMillis();
    List<Action> actions = new ArrayList<>(batch.files().size() + batch.lastOffsets().size());
    for (PendingFile f : batch.files()) {
      actions.add(
          AddFile.builder(
                  table.state.relativePath(f.file()),
                  f.partitionValues(),
                  f.file().sizeBytes(),
                  now,
                  true)
              .stats(JsonText.quote(f.file().statsJson()))
              .build());
    }
    for (Map.Entry<TopicPartition, Long> e : batch.lastOffsets().entrySet()) {
      actions.add(new SetTransaction(appId(e.getKey()), e.getValue(), Optional.of(now)));
    }
    return actions;
  }

  private static Operation operation(Batch batch) {
    Map<String, String> params = new HashMap<>();
    params.put("mode", JsonText.quote("Append"));
    // Values are written verbatim and read back as strings: a JSON string holding the JSON array.
    params.put(
        "partitionBy",
        JsonText.quote(
            batch.partitionColumns().stream()
                .map(JsonText::quote)
                .collect(Collectors.joining(",", "[", "]"))));
    return new Operation(Operation.Name.WRITE, params);
  }

  /** The table was changed underneath the batch in a way its files cannot follow. */
  static final class TableChangedException extends RuntimeException {
    TableChangedException(String message) {
      super(message);
    }
  }
}
