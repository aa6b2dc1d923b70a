package io.kcdelta.delta;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What the connector's commits say, in their {@code commitInfo}, about the txn appIds they carry:
 * the connector's appId prefix and the topics, so any reader can split {@code
 * <prefix>-<topic>-<partition>} even when prefix and topic both contain dashes. Written as {@code
 * "kafkaConnectDelta":{"txnAppIdPrefix":"orders-sink","topics":["orders-eu"]}}.
 */
public record KafkaCommitInfo(String txnAppIdPrefix, List<String> topics) {
  static final String KEY = "kafkaConnectDelta";

  public KafkaCommitInfo {
    topics = List.copyOf(new TreeSet<>(topics));
  }

  public static KafkaCommitInfo of(String txnAppIdPrefix, Collection<String> topics) {
    return new KafkaCommitInfo(txnAppIdPrefix, new ArrayList<>(topics));
  }

  /** The commitInfo fields of this. */
  public Map<String, Object> commitInfo() {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("txnAppIdPrefix", txnAppIdPrefix);
    info.put("topics", topics);
    return Map.of(KEY, info);
  }

  /** What a commit says, or null when it says nothing (another writer, an older connector). */
  public static KafkaCommitInfo of(LogCommit commit) {
    if (!(commit.commitInfo().get(KEY) instanceof Map<?, ?> info)
        || !(info.get("txnAppIdPrefix") instanceof String prefix)
        || !(info.get("topics") instanceof List<?> topics)) {
      return null;
    }
    return of(prefix, topics.stream().map(String::valueOf).toList());
  }
}
