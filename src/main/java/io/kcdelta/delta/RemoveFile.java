package io.kcdelta.delta;

import java.util.LinkedHashMap;
import java.util.Map;

/** A {@code remove} action (with extended file metadata, as current writers write it). */
public record RemoveFile(
    String path,
    long deletionTimestamp,
    boolean dataChange,
    Map<String, String> partitionValues,
    long size,
    String stats,
    Map<String, String> tags,
    Map<String, Object> deletionVector,
    Long baseRowId,
    Long defaultRowCommitVersion) {

  static RemoveFile fromJson(Map<String, Object> json) {
    AddFile fields = AddFile.fromJson(json);
    return new RemoveFile(
        fields.path(),
        ActionJson.longValue(json, "deletionTimestamp", 0),
        fields.dataChange(),
        fields.partitionValues(),
        fields.size(),
        fields.stats(),
        fields.tags(),
        fields.deletionVector(),
        fields.baseRowId(),
        fields.defaultRowCommitVersion());
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", path);
    out.put("deletionTimestamp", deletionTimestamp);
    out.put("dataChange", dataChange);
    out.put("extendedFileMetadata", true);
    out.put("partitionValues", partitionValues);
    out.put("size", size);
    if (stats != null) {
      out.put("stats", stats);
    }
    if (tags != null) {
      out.put("tags", tags);
    }
    if (deletionVector != null) {
      out.put("deletionVector", deletionVector);
    }
    if (baseRowId != null) {
      out.put("baseRowId", baseRowId);
    }
    if (defaultRowCommitVersion != null) {
      out.put("defaultRowCommitVersion", defaultRowCommitVersion);
    }
    return out;
  }
}
