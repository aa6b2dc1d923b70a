package io.kcdelta.table;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the exactly-once protocol tells the operator: where partitions resume, what each commit
 * holds, and every batch it drops, with the offsets it re-reads. Logged under {@link
 * DeltaSinkWriter}'s name, so that one logger setting covers the protocol.
 */
final class ProtocolLog {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkWriter.class);

  private ProtocolLog() {}

  static void resuming(Table table, Map<TopicPartition, Long> versions, boolean late) {
    Map<String, String> resume = new TreeMap<>();
    versions.forEach(
        (tp, v) -> resume.put(tp.toString(), v < 0 ? "group offset" : String.valueOf(v + 1)));
    LOG.info(
        "Opened {} partition(s) of table {}{}; resuming from the Delta log at {}",
        versions.size(),
        table.path(),
        late ? " late" : "",
        resume);
  }

  /**
   * Routed by field: what a table a record named holds of the partitions (they resume elsewhere).
   */
  static void routedTo(Table table, Map<TopicPartition, Long> versions) {
    LOG.info(
        "Writing to table {} (routed by field); it holds these partitions up to {}",
        table.path(),
        byName(versions));
  }

  private static Map<String, Long> byName(Map<TopicPartition, Long> offsets) {
    Map<String, Long> out = new TreeMap<>();
    offsets.forEach((tp, o) -> out.put(tp.toString(), o));
    return out;
  }

  static void openDeferred(Table table, Collection<TopicPartition> tps, Exception cause) {
    LOG.warn(
        "Could not read the Delta log of {} while opening {}; the next put() retries: {}",
        table.path(),
        tps,
        cause.toString());
  }

  static void committed(Table table, long version, Batch batch, CommitGroup.Entry entry) {
    LOG.info(
        "Committed {} version {} in {} ms ({} ms of them waiting for the commit group's round):"
            + " {} file(s), {} row(s), {} bytes, offsets {}",
        table.path(),
        version < 0 ? "(already durable)" : version,
        entry.latencyMs(),
        entry.waitedMs(),
        batch.files().size(),
        batch.rows(),
        batch.bytes(),
        sorted(batch.lastOffsets()));
  }

  static void fenced(
      Table table,
      Batch batch,
      Map<TopicPartition, Long> held,
      Map<TopicPartition, Long> expected) {
    LOG.warn(
        "Refused to commit {} row(s) to {}: other writers committed these partitions meanwhile"
            + " (table holds {}, this task expected {}). Dropping the batch and resuming from the"
            + " table.",
        batch.rows(),
        table.path(),
        sorted(held),
        sorted(expected));
  }

  static void nothingToCommit(Table table, Batch batch) {
    LOG.debug(
        "Nothing to commit to {} yet: {} has no rows and the table does not exist",
        table.path(),
        sorted(batch.lastOffsets()));
  }

  static void dropped(Table table, String why, Map<TopicPartition, Long> seeks, Exception cause) {
    LOG.warn(
        "Dropped the buffered batch of {} ({}): re-reading from offsets {}",
        table.path(),
        why,
        sorted(seeks),
        cause);
  }

  static void closeNotCommitted(Table table, Collection<TopicPartition> closing, Exception cause) {
    LOG.warn(
        "Could not commit {} while closing partitions {}; their rows will be re-read",
        table.path(),
        closing,
        cause);
  }

  private static Map<String, Long> sorted(Map<TopicPartition, Long> offsets) {
    Map<String, Long> out = new TreeMap<>();
    offsets.forEach((tp, v) -> out.put(tp.toString(), v));
    return out;
  }
}
