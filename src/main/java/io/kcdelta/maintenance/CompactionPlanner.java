package io.kcdelta.maintenance;

import io.delta.standalone.actions.AddFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Picks the small files of a table to merge: per partition value, the files below half the target
 * size that were committed at least {@code minAgeMs} ago, in runs of about the target size, each of
 * at least {@code minFiles} files. Pure: a function of the table's live files and the clock.
 *
 * <p>A run is bounded by the target size, so one rewrite reads at most that many bytes. Files
 * without stats are left alone: the merged file's stats come from its inputs', and a file with none
 * would make the whole output file unskippable.
 */
final class CompactionPlanner {

  /** Files of one partition value to merge into one file. */
  record Bin(Map<String, String> partitionValues, List<AddFile> files, long bytes) {}

  private static final Comparator<AddFile> SMALLEST_FIRST =
      Comparator.comparingLong(AddFile::getSize)
          .thenComparingLong(AddFile::getModificationTime)
          .thenComparing(AddFile::getPath);

  private final long targetBytes;
  private final int minFiles;
  private final long minAgeMs;

  CompactionPlanner(long targetBytes, int minFiles, long minAgeMs) {
    this.targetBytes = targetBytes;
    this.minFiles = minFiles;
    this.minAgeMs = minAgeMs;
  }

  /** The bins worth merging now, the one that removes the most files first. */
  List<Bin> plan(Collection<AddFile> liveFiles, long nowMs) {
    Map<String, List<AddFile>> byPartition = new TreeMap<>();
    for (AddFile f : liveFiles) {
      if (isSmall(f, nowMs)) {
        byPartition
            .computeIfAbsent(
                new TreeMap<>(f.getPartitionValues()).toString(), k -> new ArrayList<>())
            .add(f);
      }
    }
    List<Bin> bins = new ArrayList<>();
    for (List<AddFile> files : byPartition.values()) {
      if (files.size() >= minFiles) {
        files.sort(SMALLEST_FIRST);
        bins.addAll(pack(files));
      }
    }
    bins.sort(
        Comparator.comparingInt((Bin b) -> b.files().size())
            .reversed()
            .thenComparing(b -> b.files().get(0).getPath()));
    return bins;
  }

  boolean isSmall(AddFile f, long nowMs) {
    return f.getSize() < targetBytes / 2
        && nowMs - f.getModificationTime() >= minAgeMs
        && f.getStats() != null
        && !f.getStats().isBlank();
  }

  /**
   * Consecutive runs (smallest first) of at most the target size, each without a file larger than
   * the run's smaller files together; a run of fewer than minFiles files waits.
   */
  private List<Bin> pack(List<AddFile> files) {
    List<Bin> bins = new ArrayList<>();
    List<AddFile> run = new ArrayList<>();
    long bytes = 0;
    for (AddFile f : files) {
      boolean full = bytes + f.getSize() > targetBytes;
      boolean dominant = !run.isEmpty() && run.size() > 1 && f.getSize() > bytes;
      if (!run.isEmpty() && (full || dominant)) {
        addIfWorthIt(bins, run, bytes);
        run = new ArrayList<>();
        bytes = 0;
      }
      run.add(f);
      bytes += f.getSize();
    }
    addIfWorthIt(bins, run, bytes);
    return bins;
  }

  private void addIfWorthIt(List<Bin> bins, List<AddFile> run, long bytes) {
    if (run.size() >= minFiles) {
      bins.add(new Bin(run.get(0).getPartitionValues(), List.copyOf(run), bytes));
    }
  }
}
