package io.kcdelta.table;

import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.schema.RowKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.errors.DataException;

/**
 * Upsert mode, one batch: per key, where the batch holds the key's last state (a row of one of its
 * files, or deleted), and the rows of its files that a later change of their key superseded (they
 * get a deletion vector of their own file in the commit). The commit deletes every row the table
 * holds for these keys; the last state's row is added.
 */
final class KeyedChanges {
  /** A row of a file of the batch, or (position -1) a delete. */
  private record Location(Path file, long position) {}

  private static final Location DELETED = new Location(null, -1);

  private final Map<RowKey, Location> last = new HashMap<>();
  private final Map<Path, DeletionVector> superseded = new HashMap<>();

  /** The key columns' names, as the first key named them (null: no key yet). */
  private List<String> columns;

  /**
   * The key's new row is row {@code position} of {@code file}.
   *
   * @throws DataException the key names other columns than the batch's keys so far
   */
  void written(RowKey key, Path file, long position) {
    sameColumns(key);
    supersede(last.put(key, new Location(file, position)));
  }

  void deleted(RowKey key) {
    sameColumns(key);
    supersede(last.put(key, DELETED));
  }

  /**
   * @throws DataException the key names other columns than the batch's keys so far
   */
  void sameColumns(RowKey key) {
    if (columns == null) {
      columns = key.columns();
    } else if (key.columns() != null && !columns.equals(key.columns())) {
      throw new DataException(
          "The record's key columns are " + key.columns() + ", the batch's were " + columns);
    }
  }

  /** The key columns (null: the batch changes no key). */
  List<String> columns() {
    return columns;
  }

  private void supersede(Location earlier) {
    if (earlier != null && earlier.position >= 0) {
      superseded.computeIfAbsent(earlier.file, f -> new DeletionVector()).add(earlier.position);
    }
  }

  /** The keys the batch changes: the table's rows of them are deleted by its commit. */
  Set<RowKey> keys() {
    return last.keySet();
  }

  /** The rows of a file of the batch that later changes of the batch superseded (null: none). */
  DeletionVector superseded(Path file) {
    return superseded.get(file);
  }

  /** Hands over what was gathered; this one is empty afterwards. */
  KeyedChanges drain() {
    KeyedChanges out = new KeyedChanges();
    out.last.putAll(last);
    out.superseded.putAll(superseded);
    out.columns = columns;
    clear();
    return out;
  }

  /**
   * Takes back an older batch's changes (its commit failed and it is retried first): what this one
   * gathered since is newer, so an older state of the same key is superseded by it.
   */
  void requeue(KeyedChanges older) {
    if (columns == null) {
      columns = older.columns;
    }
    older.superseded.forEach((file, dv) -> superseded.merge(file, dv, DeletionVector::union));
    older.last.forEach(
        (key, location) -> {
          if (last.containsKey(key)) {
            supersede(location);
          } else {
            last.put(key, location);
          }
        });
  }

  void clear() {
    last.clear();
    superseded.clear();
    columns = null;
  }
}
