package io.kcdelta.delta;

import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An {@code add} action: a data file the table holds.
 *
 * @param path relative to the table root (URI-encoded, as the log stores it) or absolute
 * @param partitionValues by physical column name; a null value is the null partition
 * @param stats the JSON stats (numRecords, minValues, maxValues, nullCount), or null
 * @param tags null when none
 * @param deletionVector the deletion vector descriptor as in the log, or null
 * @param baseRowId null unless the table tracks rows
 * @param defaultRowCommitVersion null unless the table tracks rows
 */
public record AddFile(
    String path,
    Map<String, String> partitionValues,
    long size,
    long modificationTime,
    boolean dataChange,
    String stats,
    Map<String, String> tags,
    Map<String, Object> deletionVector,
    Long baseRowId,
    Long defaultRowCommitVersion) {

  /** A new file with no deletion vector and no row ids yet (the commit assigns them). */
  public static AddFile of(
      String path,
      Map<String, String> partitionValues,
      long size,
      long modificationTime,
      boolean dataChange,
      String stats) {
    return new AddFile(
        path, partitionValues, size, modificationTime, dataChange, stats, null, null, null, null);
  }

  AddFile withRowTracking(long newBaseRowId, long commitVersion) {
    return new AddFile(
        path,
        partitionValues,
        size,
        modificationTime,
        dataChange,
        stats,
        tags,
        deletionVector,
        newBaseRowId,
        commitVersion);
  }

  /** The {@code remove} of this file, keeping what the protocol asks a remove to repeat. */
  public RemoveFile remove(long deletionTimestamp, boolean removeDataChange) {
    return new RemoveFile(
        path,
        deletionTimestamp,
        removeDataChange,
        partitionValues,
        size,
        stats,
        tags,
        deletionVector,
        baseRowId,
        defaultRowCommitVersion);
  }

  /** The stats' numRecords (-1: no stats, or none in them). */
  public long numRecords() {
    return Stats.numRecords(stats);
  }

  /** Where its deletion vector is, or null when it has none. */
  public DeletionVectorDescriptor deletionVectorDescriptor() {
    return DeletionVectorDescriptor.fromJson(deletionVector);
  }

  /** How many of its rows its deletion vector deletes (0 without one). */
  public long deletedRows() {
    DeletionVectorDescriptor d = deletionVectorDescriptor();
    return d == null ? 0 : d.cardinality();
  }

  /**
   * The same file with this deletion vector instead of its own: committed with the {@link #remove}
   * of this one, it deletes the vector's rows. Its stats' bounds become wide: a deleted row may
   * have held one.
   */
  public AddFile withDeletionVector(DeletionVectorDescriptor dv, boolean changesData) {
    return new AddFile(
        path,
        partitionValues,
        size,
        modificationTime,
        changesData,
        dv == null ? stats : Stats.widened(stats),
        tags,
        dv == null ? null : dv.toJson(),
        baseRowId,
        defaultRowCommitVersion);
  }

  @SuppressWarnings("unchecked")
  static AddFile fromJson(Map<String, Object> json) {
    Object dv = json.get("deletionVector");
    return new AddFile(
        (String) json.get("path"),
        ActionJson.stringMap(json.get("partitionValues")),
        ActionJson.longValue(json, "size", 0),
        ActionJson.longValue(json, "modificationTime", 0),
        !Boolean.FALSE.equals(json.get("dataChange")),
        (String) json.get("stats"),
        json.get("tags") == null ? null : ActionJson.stringMap(json.get("tags")),
        dv instanceof Map<?, ?> m ? (Map<String, Object>) m : null,
        ActionJson.longOrNull(json.get("baseRowId")),
        ActionJson.longOrNull(json.get("defaultRowCommitVersion")));
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", path);
    out.put("partitionValues", partitionValues);
    out.put("size", size);
    out.put("modificationTime", modificationTime);
    out.put("dataChange", dataChange);
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
