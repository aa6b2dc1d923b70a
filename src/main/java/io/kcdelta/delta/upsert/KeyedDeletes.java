package io.kcdelta.delta.upsert;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.ColumnMapping;
import io.kcdelta.delta.LiveFiles;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.RemoveFile;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.UnsupportedTableException;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import io.kcdelta.delta.dv.DeletionVectorFiles;
import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.RowKey;
import io.kcdelta.schema.StructField;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * The deletes of one upsert commit, planned against the exact table version it follows: every row
 * the table holds for a key the commit changes is marked in its file's deletion vector (the file's
 * {@code remove} with its old vector, its {@code add} with the union), and the rows of the commit's
 * own new files that later changes of their key superseded get a vector of their own. All of the
 * commit's vectors go in one new deletion vector file.
 *
 * <p>Why planned per attempt against the version it follows: another writer's commit may have
 * marked rows of the same files (a DELETE, compaction, another task's upsert): the union then
 * starts from its vector, and compaction's new files are searched instead of the ones it removed,
 * so no delete is lost and no row comes back.
 */
public final class KeyedDeletes {
  /**
   * @param removes the table's files whose vectors change, with their old ones
   * @param adds the same files with their new vectors
   * @param newFileVectors per new file of the commit (its path relative to the table), its vector
   * @param filesSearched live files whose keys were looked at (the others' stats ruled them out)
   * @param rowsDeleted rows of the table's files newly marked deleted
   */
  public record Plan(
      List<RemoveFile> removes,
      List<AddFile> adds,
      Map<String, DeletionVectorDescriptor> newFileVectors,
      int filesSearched,
      long rowsDeleted) {}

  public static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";

  private final TableLog log;
  private final Configuration conf;
  private final KeyIndex index;

  /**
   * Refuses a table upsert mode cannot write correctly, saying what to change.
   *
   * @throws UnsupportedTableException without deletion vectors enabled, append-only, or with the
   *     change data feed (this mode writes no change files) or row tracking (an updated row would
   *     need its row id carried over)
   */
  public static void checkUpsertable(String path, Metadata metadata) {
    if (!metadata.flag(ENABLE_DELETION_VECTORS)) {
      throw new UnsupportedTableException(
          "delta.write.mode=upsert marks replaced and deleted rows in deletion vectors, which the"
              + " table "
              + path
              + " does not enable: run ALTER TABLE ... SET TBLPROPERTIES"
              + " ('delta.enableDeletionVectors' = 'true') (Delta 2.3+ readers read them), or append.");
    }
    if (metadata.flag("delta.appendOnly")) {
      throw new UnsupportedTableException(
          "delta.write.mode=upsert replaces and deletes rows, which the table "
              + path
              + " forbids (delta.appendOnly=true). Use another table, or append.");
    }
    for (String property : List.of("delta.enableChangeDataFeed", "delta.enableRowTracking")) {
      if (metadata.flag(property)) {
        throw new UnsupportedTableException(
            "delta.write.mode=upsert does not write tables with "
                + property
                + "=true yet ("
                + path
                + "): "
                + (property.contains("ChangeDataFeed")
                    ? "it writes no change data files, so the feed would miss its updates and deletes"
                    : "an updated row would need its row id carried over")
                + ". Use a table without it, or append.");
      }
    }
  }

  /** The live files as of the last plan, rolled forward to each base. */
  private LiveFiles live;

  public KeyedDeletes(TableLog log, Configuration conf, KeyIndex index) {
    this.log = log;
    this.conf = conf;
    this.index = index;
  }

  /**
   * @param base the table as of the version the commit would follow
   * @param keyColumns the table's key columns (logical names)
   * @param keys every key the commit changes
   * @param superseded per new file of the commit (relative path), its rows superseded within it
   * @throws IllegalArgumentException a key column is not a data column of the table
   * @throws UncheckedIOException a file could not be read, or the vector file written
   */
  public Plan plan(
      LogState base,
      List<String> keyColumns,
      Collection<RowKey> keys,
      Map<String, DeletionVector> superseded) {
    Map<AddFile, DeletionVector> touched = new LinkedHashMap<>();
    int searched = 0;
    long deleted = 0;
    if (base.exists() && !keys.isEmpty()) {
      List<String> physical = physicalColumns(base.metadata(), keyColumns);
      Set<Object> wanted = new HashSet<>();
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (RowKey k : keys) {
        Object v = k.size() == 1 ? k.get(0) : k;
        wanted.add(v);
        if (v instanceof Long l) {
          min = Math.min(min, l);
          max = Math.max(max, l);
        }
      }
      boolean integerKey = wanted.stream().allMatch(v -> v instanceof Long);
      for (AddFile f : liveFilesAt(base)) {
        if (integerKey && outside(f, physical.get(0), min, max)) {
          continue;
        }
        searched++;
        Object[] fileKeys;
        try {
          fileKeys = index.keys(LogPaths.absolute(log.root(), f.path()), physical, conf);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        DeletionVector rows = null;
        for (int pos = 0; pos < fileKeys.length; pos++) {
          if (fileKeys[pos] != null && wanted.contains(fileKeys[pos])) {
            if (rows == null) {
              rows = new DeletionVector();
            }
            rows.add(pos);
          }
        }
        if (rows != null) {
          touched.put(f, rows);
        }
      }
    }
    List<DeletionVector> vectors = new ArrayList<>();
    List<AddFile> files = new ArrayList<>(touched.keySet());
    DeletionVectorFiles store = new DeletionVectorFiles(log.root(), conf);
    try {
      for (AddFile f : files) {
        DeletionVector found = touched.get(f);
        DeletionVector old =
            f.deletionVectorDescriptor() == null ? null : store.read(f.deletionVectorDescriptor());
        DeletionVector union = old == null ? found : old.union(found);
        deleted += union.cardinality() - (old == null ? 0 : old.cardinality());
        vectors.add(union);
      }
      List<String> newFiles = new ArrayList<>(superseded.keySet());
      newFiles.forEach(p -> vectors.add(superseded.get(p)));
      List<DeletionVectorDescriptor> written = vectors.isEmpty() ? List.of() : store.write(vectors);
      long now = System.currentTimeMillis();
      List<RemoveFile> removes = new ArrayList<>();
      List<AddFile> adds = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        AddFile f = files.get(i);
        if (written.get(i).cardinality() == f.deletedRows()) {
          continue; // every row found was deleted already
        }
        removes.add(f.remove(now, true));
        adds.add(f.withDeletionVector(written.get(i), true));
      }
      Map<String, DeletionVectorDescriptor> newFileVectors = new LinkedHashMap<>();
      for (int i = 0; i < newFiles.size(); i++) {
        newFileVectors.put(newFiles.get(i), written.get(files.size() + i));
      }
      return new Plan(removes, adds, newFileVectors, searched, deleted);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The table's live files as of {@code base}: the last ones read, rolled forward. */
  private List<AddFile> liveFilesAt(LogState base) {
    if (live == null || live.version() > base.version()) {
      live = log.liveFiles();
    }
    if (live.version() < base.version()) {
      List<LogCommit> commits = log.commits(live.version() + 1, base.version());
      if (commits == null) {
        live = log.liveFiles();
      } else {
        Map<String, AddFile> byPath = new LinkedHashMap<>();
        live.files().forEach(f -> byPath.put(f.path(), f));
        for (LogCommit c : commits) {
          c.removes().forEach(r -> byPath.remove(r.path()));
          c.adds().forEach(a -> byPath.put(a.path(), a));
        }
        live = new LiveFiles(base.version(), List.copyOf(byPath.values()));
      }
    }
    // A newer snapshot than base means the commit's version is taken: the attempt fails anyway.
    return live.files();
  }

  /** Whether the file's stats say no row of it has a key in [min, max]. */
  private static boolean outside(AddFile f, String column, long min, long max) {
    if (f.stats() == null
        || !(JsonParser.parse(f.stats()) instanceof Map<?, ?> stats)
        || !(stats.get("minValues") instanceof Map<?, ?> mins)
        || !(stats.get("maxValues") instanceof Map<?, ?> maxs)
        || !(mins.get(column) instanceof Number lo)
        || !(maxs.get(column) instanceof Number hi)) {
      return false;
    }
    return hi.longValue() < min || lo.longValue() > max;
  }

  private static List<String> physicalColumns(Metadata metadata, List<String> keyColumns) {
    List<String> out = new ArrayList<>();
    for (String column : keyColumns) {
      StructField field = metadata.schema().field(column);
      if (field == null || metadata.partitionColumns().contains(column)) {
        throw new IllegalArgumentException(
            "The key column '"
                + column
                + "' is not a data column of the table (columns: "
                + metadata.schema().fields().stream().map(StructField::name).toList()
                + ", partitioned by "
                + metadata.partitionColumns()
                + ")");
      }
      out.add(ColumnMapping.physicalName(field, metadata));
    }
    return out;
  }
}
