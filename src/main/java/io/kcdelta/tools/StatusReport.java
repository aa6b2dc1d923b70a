package io.kcdelta.tools;

import io.kcdelta.delta.Txn;
import io.kcdelta.schema.JsonText;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/** A table's status with its Kafka offsets, as text for people or JSON for scripts. */
final class StatusReport {
  /**
   * One txn of the table read as a Kafka partition's offset: {@code <prefix>-<topic>-<partition>}.
   *
   * @param prefix the connector's txn appId prefix (null when the appId could not be split)
   * @param endOffset the partition's end offset in Kafka (null: not asked, or unknown)
   */
  record Offset(
      String appId,
      String prefix,
      String topic,
      Integer partition,
      long txnVersion,
      long lastUpdatedMs,
      Long endOffset) {

    /** Records in Kafka the table does not hold yet (null: unknown). */
    Long lag() {
      return endOffset == null ? null : Math.max(0, endOffset - (txnVersion + 1));
    }

    TopicPartition topicPartition() {
      return topic == null || partition == null ? null : new TopicPartition(topic, partition);
    }
  }

  private StatusReport() {}

  /**
   * Reads an appId as {@code <prefix>-<topic>-<partition>}: as one of the {@code named} pairs the
   * connector's commits name, else the prefix is one of {@code prefixes}, else the topic is the
   * longest of {@code topics} that fits; else it stays unsplit.
   */
  static Offset offset(
      Txn txn,
      Collection<TableStatus.Named> named,
      Collection<String> prefixes,
      Collection<String> topics) {
    String appId = txn.appId();
    long lastUpdated = txn.lastUpdated() == null ? -1 : txn.lastUpdated();
    int dash = appId.lastIndexOf('-');
    Integer partition = null;
    String rest = appId;
    if (dash > 0) {
      try {
        partition = Integer.valueOf(appId.substring(dash + 1));
        rest = appId.substring(0, dash);
      } catch (NumberFormatException e) {
        // not one of ours
      }
    }
    String prefix = null;
    String topic = null;
    for (TableStatus.Named n : partition == null ? List.<TableStatus.Named>of() : named) {
      if (rest.equals(n.prefix() + "-" + n.topic())) {
        return new Offset(
            appId, n.prefix(), n.topic(), partition, txn.version(), lastUpdated, null);
      }
    }
    if (partition != null) {
      for (String p : prefixes) {
        if (rest.startsWith(p + "-") && rest.length() > p.length() + 1) {
          prefix = p;
          topic = rest.substring(p.length() + 1);
        }
      }
      if (topic == null) {
        for (String t : topics) {
          if (rest.endsWith("-" + t)
              && rest.length() > t.length() + 1
              && (topic == null || t.length() > topic.length())) {
            topic = t;
            prefix = rest.substring(0, rest.length() - t.length() - 1);
          }
        }
      }
    }
    return new Offset(appId, prefix, topic, partition, txn.version(), lastUpdated, null);
  }

  static Offset withEnd(Offset o, Map<TopicPartition, Long> ends) {
    TopicPartition tp = o.topicPartition();
    Long end = tp == null ? null : ends.get(tp);
    return new Offset(
        o.appId(), o.prefix(), o.topic(), o.partition(), o.txnVersion(), o.lastUpdatedMs(), end);
  }

  /**
   * @param identity who S3 and DynamoDB act as (null: the table is not on S3)
   */
  static void text(
      TableStatus t, List<Offset> offsets, boolean kafkaAsked, String identity, PrintStream out) {
    out.printf("Delta table %s%n", t.path());
    if (identity != null) {
      out.printf("  AWS identity: %s%n", identity);
    }
    out.printf(
        "  version %d (%s), partitioned by %s%n",
        t.version(),
        time(t.timestampMs()),
        t.partitionColumns().isEmpty() ? "nothing" : String.join(", ", t.partitionColumns()));
    out.printf(
        "  %d data files, %s rows, %s%n",
        t.files(),
        t.filesWithoutRowCount() == 0
            ? Long.toString(t.rows())
            : t.rows() + "+ (" + t.filesWithoutRowCount() + " files without row counts)",
        size(t.bytes()));
    if (!t.commits().isEmpty()) {
      out.printf("%nLatest versions%n");
      out.printf(
          "  %8s  %-24s  %-12s  %6s  %10s  %s%n",
          "version", "time", "operation", "files", "rows", "engine");
      for (TableStatus.Commit c : t.commits()) {
        out.printf(
            "  %8d  %-24s  %-12s  %6d  %10d  %s%n",
            c.version(), time(c.timestampMs()), c.operation(), c.files(), c.rows(), c.engine());
      }
    }
    out.printf("%nKafka offsets in the table (txn actions; a partition resumes at version + 1)%n");
    if (offsets.isEmpty()) {
      out.println("  (none: no connector committed to this table yet)");
      return;
    }
    out.printf(
        "  %-28s  %-24s  %9s  %12s  %-24s%s%n",
        "txn prefix (connector)",
        "topic",
        "partition",
        "txn version",
        "updated",
        kafkaAsked ? String.format("  %12s  %10s", "end offset", "lag") : "");
    for (Offset o : offsets) {
      out.printf(
          "  %-28s  %-24s  %9s  %12d  %-24s%s%n",
          o.prefix() != null
              ? o.prefix()
              : o.partition() == null
                  ? o.appId()
                  : o.appId().substring(0, o.appId().lastIndexOf('-')) + " (prefix-topic)",
          o.topic() == null ? "?" : o.topic(),
          o.partition() == null ? "?" : o.partition(),
          o.txnVersion(),
          time(o.lastUpdatedMs()),
          kafkaAsked
              ? String.format(
                  "  %12s  %10s",
                  o.endOffset() == null ? "?" : o.endOffset(), o.lag() == null ? "?" : o.lag())
              : "");
    }
    if (kafkaAsked) {
      long lag = offsets.stream().filter(o -> o.lag() != null).mapToLong(Offset::lag).sum();
      out.printf("  total lag: %d records%n", lag);
    } else {
      out.println(
          "  (--bootstrap-servers adds each partition's end offset and lag; it and --config also"
              + " tell the txn prefix from the topic)");
    }
  }

  static void json(TableStatus t, List<Offset> offsets, String identity, PrintStream out) {
    List<String> commits = new ArrayList<>();
    for (TableStatus.Commit c : t.commits()) {
      commits.add(
          "{\"version\":"
              + c.version()
              + ",\"timestamp\":"
              + c.timestampMs()
              + ",\"operation\":"
              + JsonText.quote(c.operation())
              + ",\"engine\":"
              + JsonText.quote(c.engine())
              + ",\"files\":"
              + c.files()
              + ",\"rows\":"
              + c.rows()
              + "}");
    }
    List<String> rows = new ArrayList<>();
    for (Offset o : offsets) {
      rows.add(
          "{\"appId\":"
              + JsonText.quote(o.appId())
              + ",\"prefix\":"
              + quoteOrNull(o.prefix())
              + ",\"topic\":"
              + quoteOrNull(o.topic())
              + ",\"partition\":"
              + o.partition()
              + ",\"txnVersion\":"
              + o.txnVersion()
              + ",\"lastUpdated\":"
              + o.lastUpdatedMs()
              + ",\"endOffset\":"
              + o.endOffset()
              + ",\"lag\":"
              + o.lag()
              + "}");
    }
    out.println(
        "{\"table\":"
            + JsonText.quote(t.path())
            + ",\"awsIdentity\":"
            + quoteOrNull(identity)
            + ",\"version\":"
            + t.version()
            + ",\"timestamp\":"
            + t.timestampMs()
            + ",\"partitionColumns\":"
            + t.partitionColumns().stream()
                .map(JsonText::quote)
                .collect(Collectors.joining(",", "[", "]"))
            + ",\"files\":"
            + t.files()
            + ",\"rows\":"
            + t.rows()
            + ",\"filesWithoutRowCount\":"
            + t.filesWithoutRowCount()
            + ",\"bytes\":"
            + t.bytes()
            + ",\"commits\":["
            + String.join(",", commits)
            + "],\"offsets\":["
            + String.join(",", rows)
            + "]}");
  }

  private static String quoteOrNull(String s) {
    return s == null ? "null" : JsonText.quote(s);
  }

  private static String time(long ms) {
    return ms < 0 ? "?" : Instant.ofEpochMilli(ms).toString();
  }

  private static String size(long bytes) {
    return bytes < 1 << 20
        ? String.format("%.1f KB", bytes / 1024.0)
        : String.format("%.1f MB", bytes / (1024.0 * 1024));
  }
}
