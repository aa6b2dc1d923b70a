package io.kcdelta.parquet;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Which columns of a table's next data file are written without a dictionary, learnt from the files
 * written before. Parquet starts every column of every file with a dictionary and falls back to
 * plain values once the dictionary stops paying (its first page does not shrink, or it outgrows its
 * limit): for a column of unique values (ids, emails, timestamps) each file then pays for hashing
 * its first page into the dictionary and for re-encoding it, which was a fifth of the task thread's
 * time in TaskPathBench. A column whose file fell back is written plain for the next {@link
 * #PLAIN_FILES} files, then tried with a dictionary again, so a column whose values become
 * repetitive gets its dictionary back.
 *
 * <p>Thread-safe: one belongs to the buffer of one table, whose files may be finished on other
 * threads.
 */
public final class DictionaryChoices {
  static final int PLAIN_FILES = 16;

  /** Columns to write plain, with the number of files still to write so. */
  private final Map<ColumnPath, Integer> plain = new HashMap<>();

  /** The columns the next file writes without a dictionary. */
  synchronized Set<ColumnPath> plainColumns() {
    return Set.copyOf(plain.keySet());
  }

  /**
   * Learns from a finished file.
   *
   * @param writtenPlain the columns it was told to write plain
   */
  synchronized void learn(ParquetMetadata footer, Set<ColumnPath> writtenPlain) {
    for (ColumnPath path : writtenPlain) {
      plain.computeIfPresent(path, (p, left) -> left <= 1 ? null : left - 1);
    }
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        EncodingStats stats = chunk.getEncodingStats();
        // A column that falls back on its first page keeps no dictionary page at all; one that
        // falls back later has both. Either way some of its data pages are plain. (Booleans never
        // get a dictionary: writing them "plain" changes nothing.)
        if (stats != null
            && stats.hasNonDictionaryEncodedPages()
            && !writtenPlain.contains(chunk.getPath())) {
          plain.put(chunk.getPath(), PLAIN_FILES);
        }
      }
    }
  }
}
