package io.kcdelta.table;

import io.delta.standalone.Operation;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.parquet.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The lines of a blind append's commit file (Delta's PROTOCOL.md: one action per line, {@code
 * commitInfo} first), as Delta Standalone 3.3.2 writes them for the same actions: {@code stats} and
 * the operation parameters are written verbatim, so they arrive here as JSON text already.
 */
final class AppendCommitFile {
  private AppendCommitFile() {}

  /**
   * @param actions {@link AddFile}s with paths relative to the table root, and {@link
   *     SetTransaction}s
   */
  static List<String> lines(
      List<Action> actions,
      Operation operation,
      long readVersion,
      String engineInfo,
      long timestampMs) {
    List<String> lines = new ArrayList<>(actions.size() + 1);
    lines.add(commitInfo(operation, readVersion, engineInfo, timestampMs));
    for (Action action : actions) {
      if (action instanceof AddFile add) {
        lines.add(add(add));
      } else if (action instanceof SetTransaction txn) {
        lines.add(txn(txn));
      } else {
        throw new IllegalArgumentException("not an action of a blind append: " + action);
      }
    }
    return lines;
  }

  private static String commitInfo(
      Operation operation, long readVersion, String engineInfo, long timestampMs) {
    StringBuilder sb = new StringBuilder(256);
    sb.append("{\"commitInfo\":{\"timestamp\":").append(timestampMs);
    sb.append(",\"operation\":").append(JsonText.quote(operation.getName().toString()));
    sb.append(",\"operationParameters\":{");
    appendVerbatim(sb, operation.getParameters());
    sb.append("},\"readVersion\":").append(readVersion);
    sb.append(",\"isolationLevel\":\"Serializable\",\"isBlindAppend\":true");
    sb.append(",\"operationMetrics\":{},\"engineInfo\":").append(JsonText.quote(engineInfo));
    return sb.append("}}").toString();
  }

  private static String add(AddFile add) {
    StringBuilder sb = new StringBuilder(512);
    sb.append("{\"add\":{\"path\":").append(JsonText.quote(add.getPath()));
    sb.append(",\"partitionValues\":{");
    String sep = "";
    for (Map.Entry<String, String> e : add.getPartitionValues().entrySet()) {
      sb.append(sep).append(JsonText.quote(e.getKey())).append(':');
      sb.append(e.getValue() == null ? "null" : JsonText.quote(e.getValue()));
      sep = ",";
    }
    sb.append("},\"size\":").append(add.getSize());
    sb.append(",\"modificationTime\":").append(add.getModificationTime());
    sb.append(",\"dataChange\":").append(add.isDataChange());
    if (add.getStats() != null) {
      sb.append(",\"stats\":").append(add.getStats());
    }
    if (add.getTags() != null && !add.getTags().isEmpty()) {
      throw new IllegalArgumentException("tags are not written by a blind append: " + add);
    }
    return sb.append("}}").toString();
  }

  private static String txn(SetTransaction txn) {
    StringBuilder sb = new StringBuilder(128);
    sb.append("{\"txn\":{\"appId\":").append(JsonText.quote(txn.getAppId()));
    sb.append(",\"version\":").append(txn.getVersion());
    txn.getLastUpdated().ifPresent(t -> sb.append(",\"lastUpdated\":").append(t));
    return sb.append("}}").toString();
  }

  private static void appendVerbatim(StringBuilder sb, Map<String, String> values) {
    String sep = "";
    for (Map.Entry<String, String> e : values.entrySet()) {
      sb.append(sep).append(JsonText.quote(e.getKey())).append(':').append(e.getValue());
      sep = ",";
    }
  }
}
