package io.kcdelta.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/** The topics' logs and the consumer group's committed offsets. Offsets start at 0, no gaps. */
final class SimKafka {
  static final Schema VALUE =
      SchemaBuilder.struct()
          .name("SimRow")
          .field("t", Schema.STRING_SCHEMA)
          .field("p", Schema.INT32_SCHEMA)
          .field("o", Schema.INT64_SCHEMA)
          .field("r", Schema.STRING_SCHEMA)
          .field("k", Schema.STRING_SCHEMA)
          .build();

  /** Route values that name no table (not path-safe): errant when tables are routed by field. */
  static final String NO_TABLE = "no/table";

  private final List<TopicPartition> partitions;
  private final Map<TopicPartition, List<SinkRecord>> logs = new HashMap<>();

  /** Offsets whose value is null: with behavior.on.null.values=fail they are errant, never rows. */
  final Set<String> poison = new TreeSet<>();

  final Map<TopicPartition, Long> groupOffsets = new HashMap<>();

  SimKafka(List<TopicPartition> partitions) {
    this.partitions = List.copyOf(partitions);
    for (TopicPartition tp : partitions) {
      logs.put(tp, new ArrayList<>());
    }
  }

  List<TopicPartition> partitions() {
    return partitions;
  }

  void produce(TopicPartition tp, boolean poisonRecord) {
    List<SinkRecord> log = logs.get(tp);
    long offset = log.size();
    Struct value =
        poisonRecord
            ? null
            : new Struct(VALUE)
                .put("t", tp.topic())
                .put("p", tp.partition())
                .put("o", offset)
                .put("r", route(tp, offset))
                .put("k", rowKey(tp, offset));
    if (poisonRecord) {
      poison.add(key(tp, offset));
    }
    log.add(
        new SinkRecord(
            tp.topic(),
            tp.partition(),
            Schema.STRING_SCHEMA,
            rowKey(tp, offset),
            VALUE,
            value,
            offset));
  }

  /**
   * The record's key, also its field k: one of five per partition, mixed along it, so that in
   * upsert mode keys are updated and deleted (a null value) many times, within batches and across.
   */
  static String rowKey(TopicPartition tp, long offset) {
    long h = (offset + 7) * 0xC2B2AE3D27D4EB4FL;
    return tp.topic() + "-" + tp.partition() + "-k" + Math.floorMod(h ^ (h >>> 31), 5L);
  }

  long endOffset(TopicPartition tp) {
    return logs.get(tp).size();
  }

  SinkRecord read(TopicPartition tp, long offset) {
    return logs.get(tp).get((int) offset);
  }

  /**
   * The value of field r, which names the record's table when tables are routed by field: one of
   * three tables, mixed along a partition (a hash of the offset), now and then none.
   */
  static String route(TopicPartition tp, long offset) {
    long h = (offset + 1) * 0x9E3779B97F4A7C15L + tp.partition() * 31L + tp.topic().hashCode();
    int bucket = (int) Math.floorMod(h ^ (h >>> 29), 31L);
    return bucket == 0 ? NO_TABLE : "r" + bucket % 3;
  }

  static String key(TopicPartition tp, long offset) {
    return tp.topic() + "-" + tp.partition() + "@" + offset;
  }
}
