package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.types.StructType;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.ParquetFileWriter;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.schema.PartitionValues;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.SchemaMappingException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Buffers the rows bound for one Delta table: one rolling Parquet file per partition value, plus the
 * Kafka offsets the buffered rows cover. Knows nothing of commits; {@link #drain()} hands the batch over.
 */
final class TableWriter {

  private final String tablePath;
  private final Path root;
  private final Configuration conf;
  /** Opened on first use, so that reading the table happens where its failures are retried. */
  private DeltaLog log;
  private final DeltaSinkConfig config;
  private final CompressionCodecName codec;
  private final String codecSuffix;

  /** Schema and partitioning of the table as last read (null schema: the table does not exist yet). */
  private StructType tableSchema;
  private List<String> partitionColumns;
  /** The table schema extended by what the buffered rows need. */
  private StructType batchSchema;
  /** Per Connect schema instance: checked once, then reused for every record of that schema. */
  private final Map<Schema, RecordLayout> layouts = new IdentityHashMap<>();

  private final Map<List<String>, OpenFile> openFiles = new HashMap<>();
  /**
   * Open Parquet files hold their row group in memory until finished, so many open partitions can exhaust the
   * heap within one flush interval (100 partitions overflowed 512 MB in the memory bench). When the open files
   * together buffer more than this, the largest are finished early; they wait for the commit as finished files.
   */
  private final long bufferBudgetBytes;
  private int writesSinceBufferCheck;
  private final List<PendingFile> finished = new ArrayList<>();
  /**
   * Files of a batch whose commit failed without a verdict: that commit may have landed (e.g. the
   * log store won the version, then a later step failed), so they may be in the table. Never deleted.
   */
  private final Set<PendingFile> inDoubt = new HashSet<>();
  private final Map<TopicPartition, Long> lastOffsets = new LinkedHashMap<>();
  private long oldestRecordMs = -1;
  /**
   * When this table's current run of failed commits or uploads started (-1: its last attempt worked).
   * Per table: a healthy table's commits must not reset a failing table's retry budget.
   */
  long failingSinceMs = -1;

  TableWriter(String tablePath, Configuration conf, DeltaSinkConfig config) {
    this(tablePath, conf, config, Math.max(MIN_BUFFER_BUDGET, Runtime.getRuntime().maxMemory() / HEAP_SHARE));
  }

  TableWriter(String tablePath, Configuration conf, DeltaSinkConfig config, long bufferBudgetBytes) {
    this.tablePath = tablePath;
    this.root = new Path(tablePath);
    this.conf = conf;
    this.config = config;
    this.codec = config.compressionCodec();
    this.codecSuffix = codec == CompressionCodecName.UNCOMPRESSED ? "" : codec.name().toLowerCase() + ".";
    this.bufferBudgetBytes = bufferBudgetBytes;
  }

  /** A task may take 1/HEAP_SHARE of the heap for open files; a worker usually runs several tasks. */
  private static final int HEAP_SHARE = 8;
  private static final long MIN_BUFFER_BUDGET = 16L << 20;
  /** Summing the open files' sizes walks every column: do it every so many rows, not every row. */
  private static final int BUFFER_CHECK_EVERY = 1_000;

  String path() {
    return tablePath;
  }

  DeltaLog log() {
    if (log == null) {
      log = Unchecked.call(() -> DeltaLog.forTable(conf, root));
    }
    return log;
  }

  /** Takes the table's schema and partitioning as of {@code metadata} (null: no table yet). */
  void refresh(Metadata metadata) {
    if (metadata == null || metadata.getSchema() == null) {
      tableSchema = null;
      partitionColumns = config.partitionColumns();
    } else {
      tableSchema = metadata.getSchema();
      partitionColumns = List.copyOf(metadata.getPartitionColumns());
    }
    if (isEmpty()) {
      batchSchema = tableSchema;
      layouts.clear();
    }
  }

  boolean isEmpty() {
    return lastOffsets.isEmpty();
  }

  long oldestRecordMs() {
    return oldestRecordMs;
  }

  Set<TopicPartition> partitionsInBatch() {
    return lastOffsets.keySet();
  }

  /**
   * Checks that the record's value fits the table, without touching any file. Throws a
   * {@link org.apache.kafka.connect.errors.DataException} naming what to fix when it does not.
   */
  RecordLayout layoutFor(Schema valueSchema) {
    RecordLayout layout = layouts.get(valueSchema);
    if (layout == null) {
      layout = planLayout(valueSchema);
      layouts.put(valueSchema, layout);
    }
    return layout;
  }

  private RecordLayout planLayout(Schema valueSchema) {
    if (tableSchema == null && !config.autoCreate()) {
      throw new ConnectException("Delta table " + tablePath + " does not exist and "
          + DeltaSinkConfig.AUTO_CREATE + "=false. Create the table or set " + DeltaSinkConfig.AUTO_CREATE
          + "=true.");
    }
    StructType incoming = DeltaSchemas.toDelta(valueSchema);
    StructType evolved = batchSchema == null ? incoming
        : SchemaEvolution.evolve(batchSchema, incoming, config.schemaEvolution());
    List<Field> partitionFields = new ArrayList<>(partitionColumns.size());
    for (String column : partitionColumns) {
      Field field = valueSchema.field(column);
      if (field == null) {
        throw new SchemaMappingException("The record has no field '" + column + "', a partition column of "
            + tablePath + " (" + DeltaSinkConfig.PARTITION_COLUMNS + "=" + String.join(",", partitionColumns)
            + "). Records must carry every partition column as a top-level field.");
      }
      PartitionValues.checkPartitionable(column, field.schema());
      partitionFields.add(field);
    }
    batchSchema = evolved;
    return new RecordLayout(valueSchema, partitionFields, Set.copyOf(partitionColumns));
  }

  /**
   * Appends a row. A DataException (a value the encoder rejects) leaves the file intact; an I/O failure
   * leaves it unusable and the caller must {@link #abort()}.
   */
  void write(Struct value, RecordLayout layout, TopicPartition tp, long offset, long nowMs) throws IOException {
    List<String> key = layout.partitionKey(value);
    OpenFile file = openFiles.get(key);
    if (file != null && file.schema != layout.valueSchema() && !file.schema.equals(layout.valueSchema())) {
      // A file holds one Parquet schema; a new record schema starts a new file.
      finish(key, file);
      file = null;
    }
    if (file == null) {
      file = open(key, layout);
      openFiles.put(key, file);
    }
    file.writer.write(value);
    if (file.writer.dataSize() >= config.fileMaxBytes()) {
      finish(key, file);
    }
    if (++writesSinceBufferCheck >= BUFFER_CHECK_EVERY) {
      writesSinceBufferCheck = 0;
      boundBufferedBytes();
    }
    markProcessed(tp, offset, nowMs);
  }

  /** Finishes the largest open files while the open files together buffer more than the budget. */
  private void boundBufferedBytes() throws IOException {
    if (openFiles.size() < 2) {
      return; // one file is bounded by file.max.bytes
    }
    long total = 0;
    for (OpenFile f : openFiles.values()) {
      total += f.writer.dataSize();
    }
    while (total > bufferBudgetBytes && !openFiles.isEmpty()) {
      Map.Entry<List<String>, OpenFile> largest = null;
      long largestSize = -1;
      for (Map.Entry<List<String>, OpenFile> e : openFiles.entrySet()) {
        long size = e.getValue().writer.dataSize();
        if (size > largestSize) {
          largest = e;
          largestSize = size;
        }
      }
      finish(largest.getKey(), largest.getValue());
      total -= largestSize;
    }
  }

  /** Records that {@code offset} is covered by this batch although it produced no row (tombstone, errant). */
  void markProcessed(TopicPartition tp, long offset, long nowMs) {
    lastOffsets.put(tp, offset);
    if (oldestRecordMs < 0) {
      oldestRecordMs = nowMs;
    }
  }

  private OpenFile open(List<String> key, RecordLayout layout) throws IOException {
    StringBuilder dir = new StringBuilder();
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < partitionColumns.size(); i++) {
      String column = partitionColumns.get(i);
      String value = key.get(i);
      values.put(column, value);
      dir.append(column).append('=').append(PartitionPaths.escape(value)).append('/');
    }
    String name = "part-" + UUID.randomUUID() + ".c000." + codecSuffix + "parquet";
    Path path = new Path(root, dir + name);
    ParquetFileWriter writer = new ParquetFileWriter(conf, path, layout.valueSchema(), layout.excluded(), codec);
    return new OpenFile(writer, layout.valueSchema(), values);
  }

  private void finish(List<String> key, OpenFile file) throws IOException {
    openFiles.remove(key);
    DataFile done;
    try {
      done = file.writer.finish();
    } catch (IOException | RuntimeException e) {
      // not kept anywhere after this: release its buffers and delete what was written of it
      file.writer.abort();
      throw e;
    }
    finished.add(new PendingFile(done, file.partitionValues));
  }

  /**
   * Finishes (uploads) every open file and hands over the whole batch; the writer is empty afterwards
   * unless this throws, in which case the caller must {@link #abort()}.
   */
  Batch drain() throws IOException {
    for (Map.Entry<List<String>, OpenFile> e : new ArrayList<>(openFiles.entrySet())) {
      finish(e.getKey(), e.getValue());
    }
    Batch batch = new Batch(List.copyOf(finished), Map.copyOf(lastOffsets), batchSchema, partitionColumns);
    finished.clear();
    lastOffsets.clear();
    oldestRecordMs = -1;
    return batch;
  }

  /** Puts a batch whose commit failed back in front of what came since, to be committed first. */
  void requeue(Batch batch) {
    inDoubt.addAll(batch.files());
    finished.addAll(0, batch.files());
    batch.lastOffsets().forEach(lastOffsets::putIfAbsent);
    // Due at once: the next put retries the commit.
    oldestRecordMs = 0;
  }

  /** The batch is in the table: its schema and partitioning are the table's now. */
  void committed(Batch batch) {
    batch.files().forEach(inDoubt::remove);
    tableSchema = batch.schema();
    partitionColumns = batch.partitionColumns();
  }

  /** Drops everything buffered; open files are deleted, finished ones too unless they may be committed. */
  void abort() {
    for (OpenFile file : openFiles.values()) {
      file.writer.abort();
    }
    openFiles.clear();
    deleteQuietly(finished);
    finished.clear();
    lastOffsets.clear();
    oldestRecordMs = -1;
    batchSchema = tableSchema;
    layouts.clear();
  }

  /**
   * Deletes data files no commit references (best effort: orphans are harmless, VACUUM removes them).
   * Files {@link #requeue requeued} after a commit without a verdict are only forgotten, not deleted.
   */
  void deleteUncommitted(Batch batch) {
    deleteQuietly(batch.files());
  }

  private void deleteQuietly(List<PendingFile> files) {
    for (PendingFile f : files) {
      if (inDoubt.remove(f)) {
        continue;
      }
      try {
        f.file().path().getFileSystem(conf).delete(f.file().path(), false);
      } catch (IOException | RuntimeException e) {
        // Never referenced by the log, so readers never see it.
      }
    }
  }

  String relativePath(DataFile file) {
    return root.toUri().relativize(file.path().toUri()).toString();
  }

  private record OpenFile(ParquetFileWriter writer, Schema schema, Map<String, String> partitionValues) {
  }

  /** How records of one Connect schema map onto this table. */
  record RecordLayout(Schema valueSchema, List<Field> partitionFields, Set<String> excluded) {
    List<String> partitionKey(Struct value) {
      if (partitionFields.isEmpty()) {
        return List.of();
      }
      List<String> key = new ArrayList<>(partitionFields.size());
      for (Field f : partitionFields) {
        key.add(PartitionValues.format(value.get(f), f.schema()));
      }
      return key;
    }
  }
}
