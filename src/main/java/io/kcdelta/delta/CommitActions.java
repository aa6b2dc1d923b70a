package io.kcdelta.delta;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The lines of one commit file, in the order the protocol asks: {@code commitInfo} first (with the
 * in-commit timestamp where the table has them), then {@code protocol} and {@code metaData} when
 * they change, the domains, the file actions and the {@code txn}s. Also what the table's features
 * ask of every commit: row ids on the adds and their high-water mark.
 */
final class CommitActions {
  static final String ROW_TRACKING_DOMAIN = "delta.rowTracking";
  private static final String ICT_PROPERTY = "delta.enableInCommitTimestamps";

  private CommitActions() {}

  /**
   * @param base the table the commit follows ({@link LogState#NONE} for a new table)
   * @param protocol the table's protocol after the commit
   * @param newProtocol whether the commit writes {@code protocol}
   */
  static List<String> lines(
      LogState base,
      Protocol protocol,
      boolean newProtocol,
      CommitPlan plan,
      String engineInfo,
      long nowMs) {
    long version = base.version() + 1;
    Metadata metadata = plan.metadata() != null ? plan.metadata() : base.metadata();
    List<String> lines = new ArrayList<>();
    lines.add(
        ActionJson.line(
            "commitInfo", commitInfo(base, protocol, metadata, plan, engineInfo, nowMs)));
    if (newProtocol) {
      lines.add(ActionJson.line("protocol", protocol.toJson()));
    }
    if (plan.metadata() != null) {
      lines.add(ActionJson.line("metaData", plan.metadata().toJson()));
    }
    List<AddFile> adds = plan.adds();
    if (assignsRowIds(protocol, metadata)) {
      long highWaterMark = highWaterMark(base.domain(ROW_TRACKING_DOMAIN));
      List<AddFile> withIds = new ArrayList<>(adds.size());
      for (AddFile add : adds) {
        long rows = add.numRecords();
        if (rows < 0) {
          throw new IllegalArgumentException(
              "A file without numRecords in its stats cannot get row ids: " + add.path());
        }
        withIds.add(add.withRowTracking(highWaterMark + 1, version));
        highWaterMark += rows;
      }
      adds = withIds;
      if (!adds.isEmpty()) {
        lines.add(
            ActionJson.line(
                "domainMetadata",
                new DomainMetadata(
                        ROW_TRACKING_DOMAIN,
                        "{\"rowIdHighWaterMark\":" + highWaterMark + "}",
                        false)
                    .toJson()));
      }
    }
    adds.forEach(a -> lines.add(ActionJson.line("add", a.toJson())));
    plan.removes().forEach(r -> lines.add(ActionJson.line("remove", r.toJson())));
    plan.txns().forEach(t -> lines.add(ActionJson.line("txn", t.toJson())));
    return lines;
  }

  /** Whether the commit must carry in-commit timestamps. */
  static boolean inCommitTimestamps(Protocol protocol, Metadata metadata) {
    return protocol.supports(TableFeature.IN_COMMIT_TIMESTAMP)
        && metadata != null
        && metadata.flag(ICT_PROPERTY);
  }

  /**
   * Row tracking supported and not suspended: writers must give every row a fresh id (the
   * protocol's "Writer Requirements for Row Tracking"), enabled or not.
   */
  static boolean assignsRowIds(Protocol protocol, Metadata metadata) {
    return protocol.supports(TableFeature.ROW_TRACKING)
        && !(metadata != null && metadata.flag("delta.rowTrackingSuspended"));
  }

  private static long highWaterMark(String configuration) {
    if (configuration == null) {
      return -1;
    }
    Object parsed = io.kcdelta.schema.JsonParser.parse(configuration);
    if (parsed instanceof Map<?, ?> m && m.get("rowIdHighWaterMark") instanceof Number n) {
      return n.longValue();
    }
    throw new IllegalStateException(
        "The table's "
            + ROW_TRACKING_DOMAIN
            + " domain holds no rowIdHighWaterMark: "
            + configuration);
  }

  private static Map<String, Object> commitInfo(
      LogState base,
      Protocol protocol,
      Metadata metadata,
      CommitPlan plan,
      String engineInfo,
      long nowMs) {
    Map<String, Object> info = new LinkedHashMap<>();
    long timestamp = nowMs;
    boolean ict = inCommitTimestamps(protocol, metadata);
    if (ict && base.exists()) {
      // Monotonic even when this machine's clock is behind the previous writer's.
      timestamp = Math.max(nowMs, base.timestampMs() + 1);
    }
    info.put("timestamp", timestamp);
    if (ict) {
      info.put("inCommitTimestamp", timestamp);
    }
    info.put("operation", plan.operation());
    info.put("operationParameters", new LinkedHashMap<>(plan.operationParameters()));
    if (base.exists()) {
      info.put("readVersion", base.version());
    }
    info.put("isolationLevel", "Serializable");
    info.put("isBlindAppend", plan.blindAppend());
    info.put("engineInfo", engineInfo);
    info.put("txnId", UUID.randomUUID().toString());
    info.putAll(plan.commitInfo());
    return info;
  }
}
