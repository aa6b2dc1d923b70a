package io.kcdelta.it;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Test records: orders in JsonConverter's schema envelope, each with a unique id, produced to a
 * chosen partition. Remembers where each id landed so tests can check every (partition, offset)
 * exactly once.
 */
public final class OrderRecords {
  public static final String[] REGIONS = {"eu", "us", "apac", "latam"};

  static final String SCHEMA =
      """
      {"type":"struct","name":"Order","optional":false,"fields":[
       {"field":"id","type":"int64","optional":false},
       {"field":"region","type":"string","optional":false},
       {"field":"amount","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"12"}},
       {"field":"ts","type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},
       {"field":"note","type":"string","optional":true},
       {"field":"tags","type":"array","items":{"type":"string","optional":false},"optional":true},
       {"field":"customer","type":"struct","optional":true,"fields":[
         {"field":"name","type":"string","optional":false},
         {"field":"tier","type":"int32","optional":false}]}
      ]}"""
          .replaceAll("\\s*\\n\\s*", "");

  /** id → where it was written. */
  public final Map<Long, TopicPartition> partitionOfId = new ConcurrentHashMap<>();

  public final Map<Long, Long> offsetOfId = new ConcurrentHashMap<>();

  public static String region(long id) {
    return REGIONS[(int) (id % REGIONS.length)];
  }

  public static byte[] json(long id) {
    String amount =
        Base64.getEncoder()
            .encodeToString(BigDecimal.valueOf(id * 7 % 100_000, 2).unscaledValue().toByteArray());
    String note = id % 5 == 0 ? "null" : "\"note for order " + id + "\"";
    String customer =
        id % 7 == 0
            ? "null"
            : "{\"name\":\"customer-" + (id % 1000) + "\",\"tier\":" + (id % 3) + "}";
    String payload =
        "{\"id\":"
            + id
            + ",\"region\":\""
            + region(id)
            + "\",\"amount\":\""
            + amount
            + "\",\"ts\":"
            + (1_700_000_000_000L + id)
            + ",\"note\":"
            + note
            + ",\"tags\":[\"t"
            + (id % 3)
            + "\",\"x\"],\"customer\":"
            + customer
            + "}";
    return ("{\"schema\":" + SCHEMA + ",\"payload\":" + payload + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Sends ids [from, to) round-robin over the topic's partitions, asynchronously, and waits for
   * all.
   */
  public void produce(
      KafkaProducer<byte[], byte[]> producer, String topic, int partitions, long from, long to)
      throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      int partition = (int) (id % partitions);
      sent.add(
          producer.send(
              new ProducerRecord<>(
                  topic, partition, Long.toString(id).getBytes(StandardCharsets.UTF_8), json(id))));
      ids.add(id);
    }
    producer.flush();
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata md = sent.get(i).get();
      partitionOfId.put(ids.get(i), new TopicPartition(md.topic(), md.partition()));
      offsetOfId.put(ids.get(i), md.offset());
    }
  }

  /** Per partition, the offset of the last record produced. */
  public Map<TopicPartition, Long> lastOffsets() {
    Map<TopicPartition, Long> last = new ConcurrentHashMap<>();
    partitionOfId.forEach((id, tp) -> last.merge(tp, offsetOfId.get(id), Math::max));
    return last;
  }
}
