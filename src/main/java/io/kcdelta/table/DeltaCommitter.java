package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.Clustering;
import io.kcdelta.delta.ColumnMapping;
import io.kcdelta.delta.CommitPlan;
import io.kcdelta.delta.CommitResult;
import io.kcdelta.delta.KafkaCommitInfo;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.RemoveFile;
import io.kcdelta.delta.TableFeatures;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.Txn;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.upsert.KeyIndex;
import io.kcdelta.delta.upsert.KeyedDeletes;
import io.kcdelta.schema.JsonText;
import io.kcdelta.schema.RowKey;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.StructType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the {@link Batch}es of a commit group's round into one Delta commit, leaving out each batch
 * whose Kafka partitions the table says another writer committed since its task last did (fencing).
 *
 * <p>The check and the commit are one step of the Delta layer's commit ({@link TableLog#commit}):
 * the plan is made against the table as it is, and made again, against the newer table, each time
 * another writer takes the version first. A winner that committed one of the batch's partitions
 * fences it; one that changed the schema or partitioning has the batch checked against the new
 * metadata; our own earlier attempt that landed although its answer was lost is recognized by the
 * txn versions it left.
 */
final class DeltaCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitter.class);

  static final String ENGINE_INFO = "kafka-connect-delta/" + Version.get();

  private final String appIdPrefix;
  private final SchemaEvolution.Mode evolution;
  private final Map<String, String> tableProperties;
  private final boolean upsert;

  DeltaCommitter(
      String appIdPrefix, SchemaEvolution.Mode evolution, Map<String, String> tableProperties) {
    this(appIdPrefix, evolution, tableProperties, false);
  }

  private DeltaCommitter(
      String appIdPrefix,
      SchemaEvolution.Mode evolution,
      Map<String, String> tableProperties,
      boolean upsert) {
    this.appIdPrefix = appIdPrefix;
    this.evolution = evolution;
    this.tableProperties = Map.copyOf(tableProperties);
    this.upsert = upsert;
  }

  /** The committer of a connector: in upsert mode, the tables it creates have deletion vectors. */
  static DeltaCommitter of(DeltaSinkConfig config) {
    boolean upsert = config.writeMode() == DeltaSinkConfig.WriteMode.UPSERT;
    Map<String, String> properties = new HashMap<>(config.tableProperties());
    if (upsert) {
      properties.putIfAbsent(KeyedDeletes.ENABLE_DELETION_VECTORS, "true");
    }
    return new DeltaCommitter(
        config.txnAppIdPrefix(), config.schemaEvolution(), properties, upsert);
  }

  String appId(TopicPartition tp) {
    return appIdPrefix + "-" + tp.topic() + "-" + tp.partition();
  }

  sealed interface Outcome permits Committed, Fenced, Deferred, Failed {}

  /**
   * The batch is durable in version {@code version} (-1: it was already durable from an earlier
   * attempt). {@code rebased}: another writer took the version the commit first tried, and the
   * commit went on from the newer table.
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
  record LogRead(Metadata metadata, Map<String, Long> txnVersions, Set<String> statsColumns) {}

  /**
   * @throws io.kcdelta.delta.UnsupportedTableException the table has a feature this connector does
   *     not implement: the task fails at its first read, not at its first commit
   */
  LogRead read(TableLog log, Set<String> appIds) {
    LogState state = log.update();
    if (state.exists()) {
      TableFeatures.checkWritable(log.path(), state.protocol(), state.metadata());
      if (upsert) {
        KeyedDeletes.checkUpsertable(log.path(), state.metadata());
      }
    }
    return new LogRead(
        state.exists() ? state.metadata() : null,
        state.txnVersions(appIds),
        Clustering.topLevelColumns(state));
  }

  /** The txn versions of these partitions as the table holds them now (-1: none). */
  Map<TopicPartition, Long> txnVersions(Table table, Collection<TopicPartition> partitions) {
    Set<String> appIds = partitions.stream().map(this::appId).collect(Collectors.toSet());
    LogRead read = table.group.read(appIds);
    table.refresh(read);
    Map<TopicPartition, Long> versions = new HashMap<>();
    partitions.forEach(tp -> versions.put(tp, read.txnVersions().get(appId(tp))));
    return versions;
  }

  /**
   * Commits the entries' batches in one commit, each checked against the txn versions it expects
   * (per partition, the version its task resumed from or last committed): an entry whose partitions
   * another writer committed meanwhile is fenced and left out, the others commit.
   *
   * @param entries batches of disjoint Kafka partitions
   * @return per entry, in order, what became of it
   */
  List<Outcome> commit(TableLog log, List<CommitGroup.Entry> entries, KeyedDeletes deletes) {
    Plan plan = new Plan(log.root(), entries, upsert ? deletes : null);
    CommitResult result = log.commit(plan);
    if (result.committed() && plan.lastKeyedDeletes != null) {
      LOG.info(
          "Upsert commit {} of {}: {} rows of earlier files marked deleted, {} files searched for"
              + " their keys ({} read from storage so far in this worker)",
          result.version(),
          log.path(),
          plan.lastKeyedDeletes.rowsDeleted(),
          plan.lastKeyedDeletes.filesSearched(),
          KeyIndex.jvm().filesRead());
    }
    if (result.committed()) {
      for (Integer i : plan.included) {
        plan.outcomes[i] = new Committed(result.version(), result.attempts() > 1);
      }
    } else {
      plan.included.forEach(i -> plan.outcomes[i] = new Deferred());
    }
    return List.of(plan.outcomes);
  }

  /** The plan of one round, made anew against each newer table. */
  private final class Plan implements io.kcdelta.delta.CommitPlanner {
    private final Path root;
    private final List<CommitGroup.Entry> entries;

    /** Upsert mode: the deletes by key; null when appending. */
    private final KeyedDeletes deletes;

    Outcome[] outcomes;
    List<Integer> included;

    /** Upsert mode: what the last attempt's plan deleted. */
    KeyedDeletes.Plan lastKeyedDeletes;

    Plan(Path root, List<CommitGroup.Entry> entries, KeyedDeletes deletes) {
      this.root = root;
      this.entries = entries;
      this.deletes = deletes;
    }

    @Override
    public CommitPlan plan(LogState base, List<LogCommit> since) {
      outcomes = new Outcome[entries.size()];
      included = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        Batch batch = entries.get(i).batch;
        Map<TopicPartition, Long> actual = new HashMap<>();
        for (TopicPartition tp : batch.lastOffsets().keySet()) {
          actual.put(tp, base.txnVersion(appId(tp)));
        }
        if (actual.equals(entries.get(i).expected)) {
          included.add(i);
        } else {
          // Our own earlier attempt may have landed although it reported a failure (e.g. a
          // timeout after DynamoDB accepted the entry): then the table holds exactly these offsets.
          outcomes[i] = actual.equals(batch.lastOffsets()) ? new Committed(-1) : new Fenced(actual);
        }
      }
      Metadata metadata = mergeMetadata(base, outcomes);
      if (included.isEmpty() || metadata == null) {
        return null;
      }
      List<Batch> batches = included.stream().map(i -> entries.get(i).batch).toList();
      boolean changed = !base.exists() || metadata != base.metadata();
      List<AddFile> adds = adds(root, batches, metadata);
      List<RemoveFile> removes = List.of();
      if (deletes != null) {
        KeyedDeletes.Plan keyed = keyedDeletes(base, batches);
        adds =
            adds.stream()
                .map(
                    a ->
                        keyed.newFileVectors().containsKey(a.path())
                            ? a.withDeletionVector(keyed.newFileVectors().get(a.path()), true)
                            : a)
                .collect(Collectors.toCollection(ArrayList::new));
        adds.addAll(keyed.adds());
        removes = keyed.removes();
        lastKeyedDeletes = keyed;
      }
      return new CommitPlan(
          changed ? metadata : null,
          adds,
          removes,
          txns(batches),
          deletes == null ? "WRITE" : "MERGE",
          operationParameters(metadata.partitionColumns()),
          deletes == null,
          kafkaInfo(batches).commitInfo());
    }

    /** Upsert mode: every row the table holds for the batches' keys, and rows they superseded. */
    private KeyedDeletes.Plan keyedDeletes(LogState base, List<Batch> batches) {
      List<RowKey> keys = new ArrayList<>();
      Map<String, DeletionVector> superseded = new LinkedHashMap<>();
      List<String> columns = null;
      for (Batch batch : batches) {
        KeyedChanges changes = batch.changes();
        keys.addAll(changes.keys());
        if (columns == null) {
          columns = changes.columns();
        }
        for (PendingFile f : batch.files()) {
          DeletionVector rows = changes.superseded(f.file().path());
          if (rows != null) {
            superseded.put(LogPaths.relative(root, f.file().path()), rows);
          }
        }
      }
      return deletes.plan(base, columns == null ? List.of() : columns, keys, superseded);
    }

    /**
     * Merges the schemas the included batches need into the table's metadata. A batch whose files
     * cannot follow the table (partitioning changed, a schema change the evolution mode refuses)
     * fails alone and is left out.
     *
     * @return the metadata to commit with (the base's instance when unchanged; null: there is no
     *     table, and no files to make one)
     */
    private Metadata mergeMetadata(LogState base, Outcome[] outcomes) {
      Metadata current = base.exists() ? base.metadata() : null;
      StructType schema = current == null ? null : current.schema();
      List<String> partitionColumns = current == null ? null : current.partitionColumns();
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
          if (current != null && ColumnMapping.enabled(current)) {
            String conflict = ColumnMapping.conflict(schema, batch.schema());
            if (conflict != null) {
              throw new TableChangedException(
                  "The files of this batch no longer match the table's column mapping ("
                      + conflict
                      + ")");
            }
          }
          schema =
              schema == null
                  ? batch.schema()
                  : SchemaEvolution.evolve(
                      schema,
                      batch.schema(),
                      evolution,
                      current != null && current.flag("delta.enableTypeWidening"));
          partitionColumns = batch.partitionColumns();
        } catch (RuntimeException e) {
          outcomes[i] = new Failed(e);
          included.remove(i);
        }
      }
      if (schema == null) {
        return null;
      }
      if (current == null) {
        return Metadata.create(schema, partitionColumns, tableProperties);
      }
      return schema == current.schema() ? current : current.withSchema(schema);
    }
  }

  /** The batches' files; partition values by the names the table stores them under. */
  private static List<AddFile> adds(Path root, List<Batch> batches, Metadata metadata) {
    long now = System.currentTimeMillis();
    List<AddFile> adds = new ArrayList<>();
    for (Batch batch : batches) {
      for (PendingFile f : batch.files()) {
        Map<String, String> partitionValues = new LinkedHashMap<>();
        f.partitionValues()
            .forEach(
                (column, value) ->
                    partitionValues.put(
                        ColumnMapping.physicalName(metadata.schema().field(column), metadata),
                        value));
        adds.add(
            AddFile.of(
                LogPaths.relative(root, f.file().path()),
                partitionValues,
                f.file().sizeBytes(),
                now,
                true,
                f.file().statsJson()));
      }
    }
    return adds;
  }

  private List<Txn> txns(List<Batch> batches) {
    long now = System.currentTimeMillis();
    List<Txn> txns = new ArrayList<>();
    for (Batch batch : batches) {
      batch.lastOffsets().forEach((tp, offset) -> txns.add(new Txn(appId(tp), offset, now)));
    }
    return txns;
  }

  /**
   * Which Kafka partitions the txn appIds of this commit name: the appId alone cannot say where the
   * prefix ends and the topic begins when both contain dashes.
   */
  private KafkaCommitInfo kafkaInfo(List<Batch> batches) {
    Set<String> topics = new TreeSet<>();
    batches.forEach(b -> b.lastOffsets().keySet().forEach(tp -> topics.add(tp.topic())));
    return KafkaCommitInfo.of(appIdPrefix, topics);
  }

  private static Map<String, String> operationParameters(List<String> partitionColumns) {
    Map<String, String> params = new LinkedHashMap<>();
    params.put("mode", "Append");
    // As Spark writes it: the JSON array as a string.
    params.put(
        "partitionBy",
        partitionColumns.stream().map(JsonText::quote).collect(Collectors.joining(",", "[", "]")));
    return params;
  }

  /** The table was changed underneath the batch in a way its files cannot follow. */
  static final class TableChangedException extends RuntimeException {
    TableChangedException(String message) {
      super(message);
    }
  }
}
