package io.kcdelta.record;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Which Kafka coordinates of a record the exactly-once protocol uses: its txn appId, dedupe and
 * seeks must name the partition the consumer actually reads, whatever an SMT did to the record.
 */
public enum RecordOrigin {
  /**
   * Connect 3.6+ (KIP-793): the coordinates as consumed, before any SMT rewrote topic or partition.
   */
  ORIGINAL {
    @Override
    public TopicPartition partition(SinkRecord r) {
      return new TopicPartition(r.originalTopic(), r.originalKafkaPartition());
    }

    @Override
    public long offset(SinkRecord r) {
      return r.originalKafkaOffset();
    }

    @Override
    public String unopenedPartitionHint() {
      return "";
    }
  },
  /**
   * Before Connect 3.6 the runtime keeps no original coordinates: the record's own, which an SMT
   * that renames the topic or changes the partition has already rewritten.
   */
  AS_DELIVERED {
    @Override
    public TopicPartition partition(SinkRecord r) {
      return new TopicPartition(r.topic(), r.kafkaPartition());
    }

    @Override
    public long offset(SinkRecord r) {
      return r.kafkaOffset();
    }

    @Override
    public String unopenedPartitionHint() {
      return " Before Connect 3.6 a sink cannot tell which partition a record was consumed from, so an SMT"
          + " that renames the topic or changes the partition (RegexRouter, TimestampRouter, ...) cannot be"
          + " used with this connector on this worker: remove it, or run the connector on Connect 3.6 or later.";
    }
  };

  public abstract TopicPartition partition(SinkRecord r);

  public abstract long offset(SinkRecord r);

  /**
   * Why a record may name a partition the task never opened, with these coordinates ("" if no
   * reason).
   */
  public abstract String unopenedPartitionHint();

  /** The task's failure for a record of a partition that open() never named. */
  public ConnectException notOpened(SinkRecord r) {
    return new ConnectException(
        "Connect delivered "
            + describe(r)
            + " of a partition this task was not given (open() was not called for "
            + partition(r)
            + "); refusing to write it without its offsets."
            + unopenedPartitionHint());
  }

  /** {@code topic-partition@offset}, for messages. */
  public String describe(SinkRecord r) {
    TopicPartition tp = partition(r);
    return tp.topic() + "-" + tp.partition() + "@" + offset(r);
  }
}
