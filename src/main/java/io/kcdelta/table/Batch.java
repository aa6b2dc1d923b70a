package io.kcdelta.table;

import io.kcdelta.metrics.CommitSize;
import io.kcdelta.schema.StructType;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Everything one commit makes durable for one table.
 *
 * @param files finished data files
 * @param lastOffsets per Kafka partition, the offset of the last record covered (the txn version)
 * @param schema the table schema these files need (the table's own when nothing evolved)
 * @param partitionColumns the partition columns the files were laid out by
 * @param newestTimestampMs the newest Kafka timestamp of the records covered (-1: none had one)
 * @param changes upsert mode: the keys the batch changes (empty when appending)
 */
record Batch(
    List<PendingFile> files,
    Map<TopicPartition, Long> lastOffsets,
    StructType schema,
    List<String> partitionColumns,
    long newestTimestampMs,
    KeyedChanges changes) {

  /** A batch of records without timestamps. */
  Batch(
      List<PendingFile> files,
      Map<TopicPartition, Long> lastOffsets,
      StructType schema,
      List<String> partitionColumns) {
    this(files, lastOffsets, schema, partitionColumns, -1, new KeyedChanges());
  }

  CommitSize size() {
    return new CommitSize(files.size(), rows(), bytes(), newestTimestampMs);
  }

  long rows() {
    return files.stream().mapToLong(f -> f.file().numRecords()).sum();
  }

  long bytes() {
    return files.stream().mapToLong(f -> f.file().sizeBytes()).sum();
  }
}
