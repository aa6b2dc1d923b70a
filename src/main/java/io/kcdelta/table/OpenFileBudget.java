package io.kcdelta.table;

import java.util.Collection;

/**
 * Bounds the memory a task's open Parquet files take. An open file holds its row group in memory
 * until it is finished, so many open partition values can exhaust the heap within one flush
 * interval (100 partitions overflowed 512 MB in the memory bench). The budget is per task, across
 * all its tables: with {@code ${topic}} a task may write many tables, and a budget per table would
 * multiply with them.
 */
final class OpenFileBudget {
  /**
   * A task may take 1/HEAP_SHARE of the heap for open files; a worker usually runs several tasks.
   */
  private static final int HEAP_SHARE = 8;

  private static final long MIN_BYTES = 16L << 20;

  /** Summing the open files' sizes walks every column: do it every so many rows, not every row. */
  private static final int CHECK_EVERY_ROWS = 1_000;

  private final long bytes;
  private int rowsSinceCheck;

  /** The open files' memory at the last check, and what files opened since then hold. */
  private long memoryAtLastCheck;

  private long openedSinceCheck;

  OpenFileBudget(long bytes) {
    this.bytes = bytes;
  }

  static OpenFileBudget ofHeap() {
    return new OpenFileBudget(Math.max(MIN_BYTES, Runtime.getRuntime().maxMemory() / HEAP_SHARE));
  }

  /**
   * Counts what a newly opened file holds before its first row: rows spread over thousands of
   * partition values open a file each, and those take more memory than the rows.
   */
  void fileOpened(long memoryBytes) {
    openedSinceCheck += memoryBytes;
  }

  /**
   * Counts a written row; true when it is time to check the budget: every so many rows, or as soon
   * as the files opened since the last check could exceed it.
   */
  boolean rowWritten() {
    boolean openedTooMuch = openedSinceCheck > 0 && memoryAtLastCheck + openedSinceCheck > bytes;
    if (++rowsSinceCheck < CHECK_EVERY_ROWS && !openedTooMuch) {
      return false;
    }
    rowsSinceCheck = 0;
    openedSinceCheck = 0;
    return true;
  }

  /**
   * The table holding the task's largest open file while all open files together exceed the budget,
   * else null. A single open file is bounded by {@code file.max.bytes} and never finished early.
   */
  Table overBudget(Collection<Table> tables) {
    int files = 0;
    long total = 0;
    Table largest = null;
    long largestBytes = -1;
    for (Table t : tables) {
      FileBuffer.OpenSizes open = t.files.openSizes();
      files += open.files();
      total += open.memoryBytes();
      if (open.files() > 0 && open.largestFileBytes() > largestBytes) {
        largest = t;
        largestBytes = open.largestFileBytes();
      }
    }
    memoryAtLastCheck = total;
    return total > bytes && files > 1 ? largest : null;
  }
}
