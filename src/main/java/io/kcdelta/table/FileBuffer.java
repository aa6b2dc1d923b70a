package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.DataFileNames;
import io.kcdelta.parquet.DictionaryChoices;
import io.kcdelta.parquet.ParquetFileWriter;
import io.kcdelta.record.RecordLayout;
import io.kcdelta.schema.RowKey;
import io.kcdelta.schema.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The rows buffered for one table until its next commit: one rolling Parquet file per partition
 * value, the files being finished (by the worker's {@link FileFinisher}) and finished, and the
 * Kafka offsets they cover. Knows nothing of commits; {@link #drain} hands the batch over once
 * every file is finished.
 */
final class FileBuffer {
  private final Path root;
  private final Configuration conf;
  private final long fileMaxBytes;
  private final CompressionCodecName codec;
  private final DataFileNames names;
  private final DictionaryChoices dictionaries = new DictionaryChoices();

  /**
   * Files rolled at {@code file.max.bytes} that may be finishing at once; one more waits for the
   * oldest. Each holds its row group in memory until it is written.
   */
  static final int MAX_FINISHING = 4;

  private final FileFinisher finisher;
  private final OpenFileBudget budget;
  private final Map<List<String>, OpenFile> openFiles = new HashMap<>();

  /** Files handed to the finisher, oldest first. */
  private final List<FinishingFile> finishing = new ArrayList<>();

  private final List<PendingFile> finished = new ArrayList<>();

  /**
   * Files of a batch whose commit failed without a verdict: that commit may have landed (e.g. the
   * log store won the version, then a later step failed), so they may be in the table. Never
   * deleted.
   */
  private final Set<PendingFile> inDoubt = new HashSet<>();

  private final Map<TopicPartition, Long> lastOffsets = new LinkedHashMap<>();
  private final KeyedChanges changes = new KeyedChanges();
  private long oldestRecordMs = -1;

  private long newestTimestampMs = -1;

  /** The open files' in-memory size at the last {@link #openSizes} (a walk over every column). */
  private long openBytesAtLastCheck;

  /**
   * The size of the last finished file against what it held in memory before (1 until a file
   * finished): Parquet's in-memory count is of values before dictionary encoding and compression,
   * several times what the file becomes (3.7 times for the tests' order records).
   */
  private double fileBytesPerBufferedByte = 1.0;

  FileBuffer(
      Path root,
      Configuration conf,
      DeltaSinkConfig config,
      FileFinisher finisher,
      OpenFileBudget budget) {
    this.root = root;
    this.finisher = finisher;
    this.budget = budget;
    this.conf = conf;
    this.fileMaxBytes = config.fileMaxBytes();
    this.codec = config.compressionCodec();
    this.names = new DataFileNames(config.txnAppIdPrefix(), codec);
  }

  boolean isEmpty() {
    return lastOffsets.isEmpty();
  }

  long oldestRecordMs() {
    return oldestRecordMs;
  }

  Set<TopicPartition> partitions() {
    return lastOffsets.keySet();
  }

  /**
   * Appends a row; in upsert mode ({@code rowKey} not null) the key's new row. A DataException (a
   * value the encoder rejects) leaves the file intact; an I/O failure leaves it unusable and the
   * caller must {@link #abort()}.
   */
  void write(
      Struct value,
      RecordLayout layout,
      RowKey rowKey,
      TopicPartition tp,
      long offset,
      long nowMs,
      Long timestamp)
      throws IOException {
    List<String> key = layout.partitionKey(value);
    OpenFile file = openFiles.get(key);
    if (file != null
        && file.schema != layout.valueSchema()
        && !file.schema.equals(layout.valueSchema())) {
      // A file holds one Parquet schema; a new record schema starts a new file.
      finish(key, file);
      file = null;
    }
    if (file == null) {
      file = open(key, layout);
      openFiles.put(key, file);
    }
    if (rowKey != null) {
      changes.sameColumns(rowKey);
    }
    long position = file.writer.numRecords();
    file.writer.write(value);
    if (rowKey != null) {
      changes.written(rowKey, file.writer.path(), position);
    }
    if (file.writer.reached(fileMaxBytes)) {
      finish(key, file);
    }
    markProcessed(tp, offset, nowMs, timestamp);
  }

  /** Upsert mode: the key's row is deleted by the record at {@code offset}. */
  void delete(RowKey key, TopicPartition tp, long offset, long nowMs, Long timestamp) {
    changes.deleted(key);
    markProcessed(tp, offset, nowMs, timestamp);
  }

  /**
   * Records that {@code offset} is covered by this batch although it produced no row (tombstone,
   * errant).
   */
  void markProcessed(TopicPartition tp, long offset, long nowMs, Long timestamp) {
    lastOffsets.put(tp, offset);
    if (oldestRecordMs < 0) {
      oldestRecordMs = nowMs;
    }
    if (timestamp != null && timestamp > newestTimestampMs) {
      newestTimestampMs = timestamp;
    }
  }

  /** Rows held for the next commit. */
  long rows() {
    long rows = 0;
    for (PendingFile f : finished) {
      rows += f.file().numRecords();
    }
    for (FinishingFile f : finishing) {
      rows += f.rows();
    }
    for (OpenFile f : openFiles.values()) {
      rows += f.writer.numRecords();
    }
    return rows;
  }

  int openFiles() {
    return openFiles.size();
  }

  /**
   * Finished files' bytes, plus the open and finishing files' in-memory size as of the last {@link
   * #openSizes}.
   */
  long bytes() {
    long bytes = openBytesAtLastCheck;
    for (PendingFile f : finished) {
      bytes += f.file().sizeBytes();
    }
    return bytes;
  }

  /**
   * What the open files, and those being finished, hold in memory until they are written.
   *
   * @param files the open files
   * @param memoryBytes the memory they hold
   * @param largestFileBytes the largest open file's memory
   */
  record OpenSizes(int files, long memoryBytes, long largestFileBytes) {}

  /** One walk over the open files (each size walks every column of its file). */
  OpenSizes openSizes() {
    long data = 0;
    long memory = 0;
    for (FinishingFile f : finishing) {
      data += f.bytes();
      memory += f.reservedBytes() + f.bytes();
    }
    long largest = 0;
    for (OpenFile f : openFiles.values()) {
      long size = f.writer.dataSize();
      long held = f.writer.reservedBytes() + size;
      data += size;
      memory += held;
      largest = Math.max(largest, held);
    }
    openBytesAtLastCheck = data;
    return new OpenSizes(openFiles.size(), memory, largest);
  }

  /**
   * Frees memory: waits for the files being finished, if any, else finishes the largest open file
   * early (it waits for the commit as a finished file).
   */
  void finishLargest() throws IOException {
    if (!finishing.isEmpty()) {
      awaitFinishing();
      return;
    }
    Map.Entry<List<String>, OpenFile> largest = null;
    for (Map.Entry<List<String>, OpenFile> e : openFiles.entrySet()) {
      if (largest == null
          || e.getValue().writer.dataSize() > largest.getValue().writer.dataSize()) {
        largest = e;
      }
    }
    if (largest != null) {
      finish(largest.getKey(), largest.getValue());
      awaitFinishing();
    }
  }

  private OpenFile open(List<String> key, RecordLayout layout) throws IOException {
    StringBuilder dir = new StringBuilder();
    Map<String, String> values = new LinkedHashMap<>();
    List<RecordLayout.PartitionSource> columns = layout.partitions();
    for (int i = 0; i < columns.size(); i++) {
      String column = columns.get(i).column();
      String value = key.get(i);
      values.put(column, value);
      dir.append(column).append('=').append(PartitionPaths.escape(value)).append('/');
    }
    Path path = new Path(root, dir + names.next());
    ParquetFileWriter writer =
        new ParquetFileWriter(
            conf,
            path,
            layout.valueSchema(),
            layout.excluded(),
            codec,
            layout.columns(),
            dictionaries);
    budget.fileOpened(writer.reservedBytes());
    return new OpenFile(writer, layout.valueSchema(), values);
  }

  /** Hands the file to the finisher; waits for the oldest when too many are finishing. */
  private void finish(List<String> key, OpenFile file) throws IOException {
    openFiles.remove(key);
    startFinishing(file);
    if (finishing.size() > MAX_FINISHING) {
      collect(finishing.remove(0));
    }
  }

  private void startFinishing(OpenFile file) {
    // Sizes first: the writer belongs to the finisher's thread once started.
    long bytes = file.writer.dataSize();
    long reserved = file.writer.reservedBytes();
    long rows = file.writer.numRecords();
    finishing.add(
        new FinishingFile(
            finisher.start(file.writer), file.partitionValues, bytes, reserved, rows));
  }

  /** Waits for one file; a failed one is gone (the finisher deleted it). */
  private void collect(FinishingFile f) throws IOException {
    DataFile done = f.finishing().await();
    if (f.bytes() > 0) {
      fileBytesPerBufferedByte = Math.min(1.0, (double) done.sizeBytes() / f.bytes());
    }
    finished.add(new PendingFile(done, f.partitionValues()));
  }

  /**
   * About how many bytes of data files the batch makes: the finished files, and the open and
   * finishing ones as large as their memory and the last file's compression make them (as of the
   * last {@link #openSizes}).
   */
  long fileBytes() {
    long bytes = Math.round(openBytesAtLastCheck * fileBytesPerBufferedByte);
    for (PendingFile f : finished) {
      bytes += f.file().sizeBytes();
    }
    return bytes;
  }

  /**
   * Waits for every file being finished, also after one failed (no file may still be written once
   * the caller deletes the batch); throws the first failure.
   */
  private void awaitFinishing() throws IOException {
    Exception first = null;
    while (!finishing.isEmpty()) {
      try {
        collect(finishing.remove(0));
      } catch (IOException | RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first instanceof IOException io) {
      throw io;
    } else if (first != null) {
      throw (RuntimeException) first;
    }
  }

  /**
   * Finishes (uploads) every open file and hands over the whole batch; the buffer is empty
   * afterwards unless this throws, in which case the caller must {@link #abort()}.
   */
  Batch drain(StructType schema, List<String> partitionColumns) throws IOException {
    // All at once: the files of several partition values finish side by side.
    for (OpenFile f : openFiles.values()) {
      startFinishing(f);
    }
    openFiles.clear();
    awaitFinishing();
    Batch batch =
        new Batch(
            List.copyOf(finished),
            Map.copyOf(lastOffsets),
            schema,
            partitionColumns,
            newestTimestampMs,
            changes.drain());
    clear();
    return batch;
  }

  private void clear() {
    changes.clear();
    finished.clear();
    lastOffsets.clear();
    oldestRecordMs = -1;
    newestTimestampMs = -1;
    openBytesAtLastCheck = 0;
  }

  /** Puts a batch whose commit failed back in front of what came since, to be committed first. */
  void requeue(Batch batch) {
    inDoubt.addAll(batch.files());
    finished.addAll(0, batch.files());
    batch.lastOffsets().forEach(lastOffsets::putIfAbsent);
    changes.requeue(batch.changes());
    newestTimestampMs = Math.max(newestTimestampMs, batch.newestTimestampMs());
    // Due at once: the next put retries the commit.
    oldestRecordMs = 0;
  }

  void committed(Batch batch) {
    batch.files().forEach(inDoubt::remove);
  }

  /**
   * Drops everything buffered; open files are deleted, finished ones too unless they may be
   * committed.
   */
  void abort() {
    for (OpenFile file : openFiles.values()) {
      file.writer.abort();
    }
    openFiles.clear();
    try {
      awaitFinishing();
    } catch (IOException | RuntimeException e) {
      // Those that failed are deleted; those that were finished are deleted below.
    }
    deleteUncommitted(finished);
    clear();
  }

  /**
   * Deletes data files no commit references (best effort: orphans are harmless, VACUUM removes
   * them). Files {@link #requeue requeued} after a commit without a verdict are only forgotten, not
   * deleted.
   */
  void deleteUncommitted(List<PendingFile> files) {
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

  private record OpenFile(
      ParquetFileWriter writer, Schema schema, Map<String, String> partitionValues) {}

  private record FinishingFile(
      FileFinisher.Finishing finishing,
      Map<String, String> partitionValues,
      long bytes,
      long reservedBytes,
      long rows) {}
}
