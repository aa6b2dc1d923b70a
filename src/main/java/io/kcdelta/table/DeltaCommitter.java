package io.kcdelta.table;

import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.exceptions.ConcurrentTransactionException;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.schema.JsonText;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.StructType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns the {@link Batch}es of a commit group's round into one Delta commit, leaving out each batch
 * whose Kafka partitions the table says another writer committed since its task last did (fencing).
 *
 * <p>The check and the commit happen in one optimistic transaction: {@link TxnVersions} registers
 * the appIds as read, so a concurrent commit touching them between the check and our commit makes
 * Delta Standalone throw {@link ConcurrentTransactionException} instead of committing.
 */
final class DeltaCommitter {

  static final String ENGINE_INFO = "kafka-connect-delta/" + Version.get();

  /** Conflicts (not failures) that a fresh transaction may resolve: concurrent metadata changes. */
  private static final int MAX_CONFLICT_RETRIES = 10;

  private final String appIdPrefix;
  private final SchemaEvolution.Mode evolution;

  /** Of the one log this committer commits to. */
  private final TxnVersions txnVersions = new TxnVersions();

  DeltaCommitter(String appIdPrefix, SchemaEvolution.Mode evolution) {
    this.appIdPrefix = appIdPrefix;
    this.evolution = evolution;
  }

  String appId(TopicPartition tp) {
    return appIdPrefix + "-" + tp.topic() + "-" + tp.partition();
  }

  sealed interface Outcome permits Committed, Fenced, Deferred, Failed {}

  /**
   * The batch is durable in version {@code version} (-1: it was already durable from an earlier
   * attempt). {@code rebased}: another writer took the version the commit first tried, or changed
   * the metadata concurrently, and the commit went on from the newer log.
   */
  record Committed(long version, boolean rebased) implements Outcome {
    Committed(long version) {
      this(version, false);
    }
  }

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

  /** The commit of the batch failed; its task decides whether to retry. */
  record Failed(RuntimeException cause) implements Outcome {}

  /**
   * What one read of the table's log said: its metadata (null: no table yet) and the txn version of
   * each appId asked for (-1: none).
   */
  record LogRead(Metadata metadata, Map<String, Long> txnVersions) {}

  LogRead read(DeltaLog log, Set<String> appIds) {
    return Unchecked.call(
        () -> {
          OptimisticTransaction txn = log.startTransaction();
          return new LogRead(
              txn.readVersion() < 0 ? null : txn.metadata(), txnVersions.read(log, txn, appIds));
        });
  }

  /** The txn versions of these partitions as the table holds them now (-1: none). */
  Map<TopicPartition, Long> txnVersions(Table table, Collection<TopicPartition> partitions) {
    Set<String> appIds = partitions.stream().map(this::appId).collect(Collectors.toSet());
    LogRead read = table.group.read(appIds);
    table.refresh(read.metadata());
    Map<TopicPartition, Long> versions = new HashMap<>();
    partitions.forEach(tp -> versions.put(tp, read.txnVersions().get(appId(tp))));
    return versions;
  }

  /**
   * Commits the entries' batches in one transaction, each checked against the txn versions it
   * expects (per partition, the version its task resumed from or last committed): an entry whose
   * partitions another writer committed meanwhile is fenced and left out, the others commit.
   *
   * @param entries batches of disjoint Kafka partitions
   * @return per entry, in order, what became of it
   */
  List<Outcome> commit(DeltaLog log, Path root, List<CommitGroup.Entry> entries) {
    return Unchecked.call(() -> tryCommit(log, root, entries));
  }

  private List<Outcome> tryCommit(DeltaLog log, Path root, List<CommitGroup.Entry> entries) {
    for (int attempt = 1; ; attempt++) {
      OptimisticTransaction txn = log.startTransaction();
      Set<String> appIds = new HashSet<>();
      entries.forEach(e -> e.batch.lastOffsets().keySet().forEach(tp -> appIds.add(appId(tp))));
      Map<String, Long> tableVersions = txnVersions.read(log, txn, appIds);
      Outcome[] outcomes = new Outcome[entries.size()];
      List<Integer> included = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        Batch batch = entries.get(i).batch;
        Map<TopicPartition, Long> actual = new HashMap<>();
        for (TopicPartition tp : batch.lastOffsets().keySet()) {
          actual.put(tp, tableVersions.get(appId(tp)));
        }
        if (actual.equals(entries.get(i).expected)) {
          included.add(i);
        } else {
          // Our own earlier attempt may have landed although it reported a failure (e.g. a
          // timeout after DynamoDB accepted the entry): then the table holds exactly these offsets.
          outcomes[i] = actual.equals(batch.lastOffsets()) ? new Committed(-1) : new Fenced(actual);
        }
      }
      List<String> partitionColumns = mergeMetadata(txn, entries, included, outcomes);
      if (included.isEmpty() || partitionColumns == null) {
        included.forEach(i -> outcomes[i] = new Deferred());
        return List.of(outcomes);
      }
      try {
        List<Batch> batches = included.stream().map(i -> entries.get(i).batch).toList();
        CommitResult result =
            txn.commit(actions(root, batches), operation(partitionColumns), ENGINE_INFO);
        boolean rebased = attempt > 1 || result.getVersion() > txn.readVersion() + 1;
        included.forEach(i -> outcomes[i] = new Committed(result.getVersion(), rebased));
        return List.of(outcomes);
      } catch (ConcurrentTransactionException e) {
        // A concurrent commit touched one of our appIds: the next round sees it and fences.
      } catch (DeltaConcurrentModificationException e) {
        if (attempt >= MAX_CONFLICT_RETRIES) {
          throw e;
        }
      }
    }
  }

  /**
   * Merges the schemas the included batches need into the transaction's metadata. A batch whose
   * files cannot follow the table (partitioning changed, a schema change the evolution mode
   * refuses) fails alone and is left out.
   *
   * @return the table's partition columns (null: there is no table, and no files to make one)
   */
  private List<String> mergeMetadata(
      OptimisticTransaction txn,
      List<CommitGroup.Entry> entries,
      List<Integer> included,
      Outcome[] outcomes) {
    Metadata current = txn.readVersion() < 0 ? null : txn.metadata();
    StructType currentSchema = current == null ? null : StandaloneSchemas.of(current.getSchema());
    StructType schema = currentSchema;
    List<String> partitionColumns = current == null ? null : current.getPartitionColumns();
    for (Integer i : List.copyOf(included)) {
      Batch batch = entries.get(i).batch;
      if (batch.files().isEmpty()) {
        // Offsets only: no file was laid out by any schema or partitioning.
        continue;
      }
      try {
        if (batch.schema() == null) {
          // Files are always written by a schema: without it they could not be committed, and
          // taking the batch as rowless would drop its rows while its offsets count as done.
          throw new IllegalStateException(
              "A batch of " + batch.files().size() + " data file(s) has no schema");
        }
        if (partitionColumns != null && !partitionColumns.equals(batch.partitionColumns())) {
          throw new TableChangedException(
              "The partition columns of the table changed from "
                  + batch.partitionColumns()
                  + " to "
                  + partitionColumns
                  + " while this task wrote files");
        }
        schema =
            schema == null
                ? batch.schema()
                : SchemaEvolution.evolve(schema, batch.schema(), evolution);
        partitionColumns = batch.partitionColumns();
      } catch (RuntimeException e) {
        outcomes[i] = new Failed(e);
        included.remove(i);
      }
    }
    if (current == null) {
      if (schema != null) {
        txn.updateMetadata(
            Metadata.builder()
                .schema(StandaloneSchemas.toStandalone(schema))
                .partitionColumns(partitionColumns)
                .createdTime(System.currentTimeMillis())
                .build());
      }
    } else if (schema != currentSchema) {
      txn.updateMetadata(
          current.copyBuilder().schema(StandaloneSchemas.toStandalone(schema)).build());
    }
    return schema == null ? null : partitionColumns;
  }

  private List<Action> actions(Path root, List<Batch> batches) {
    long now = System.currentTimeMillis();
    List<Action> actions = new ArrayList<>();
    for (Batch batch : batches) {
      for (PendingFile f : batch.files()) {
        actions.add(
            AddFile.builder(
                    relativePath(root, f.file()),
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
    }
    return actions;
  }

  static String relativePath(Path root, DataFile file) {
    return root.toUri().relativize(file.path().toUri()).toString();
  }

  private static Operation operation(List<String> partitionColumns) {
    Map<String, String> params = new HashMap<>();
    params.put("mode", JsonText.quote("Append"));
    // Values are written verbatim and read back as strings: a JSON string holding the JSON array.
    params.put(
        "partitionBy",
        JsonText.quote(
            partitionColumns.stream()
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
