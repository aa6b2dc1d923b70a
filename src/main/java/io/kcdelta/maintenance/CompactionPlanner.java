package io.kcdelta.maintenance;

import io.kcdelta.delta.AddFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Picks the small files of a table to merge: per partition value and size tier, the files below
 * half the target size that were committed at least {@code minAgeMs} ago, smallest first, in runs
 * of at most the target size, each of at least {@code minFiles} files (or of two or more that make
 * a file of at least half the target). Pure: a function of the table's live files and the clock.
 *
 * <p>Size tiers: a file of {@code s} bytes is in tier {@code floor(log(s) / log(minFiles))}, and
 * only files of one tier are merged together. Merging {@code minFiles} files of a tier makes a file
 * at least one tier up, so a byte is rewritten about once per tier between its first file and half
 * the target: log<sub>minFiles</sub> of their ratio, about twice from 1 MB files to 64 MB with the
 * default 8. Without tiers an earlier compaction's output, still small, would be rewritten at every
 * interval for the few new files beside it: with the first policy (oldest first, no tiers) a 100
 * KB-per-flush case of CompactionPlanBench's harness rewrote 34 times the bytes written. The price:
 * at rest a partition value may keep up to {@code minFiles - 1} small files per tier instead of in
 * all.
 *
 * <p>Besides: a file whose deletion vector deletes a fifth of its rows or more is a bin of its own
 * (see {@link #mostlyDeleted}) when no run takes it, after the runs.
 *
 * <p>A run is bounded by the target size, so one rewrite reads at most that many bytes. Files
 * without stats are left alone: the merged file's stats come from its inputs', and a file with none
 * would make the whole output file unskippable.
 */
final class CompactionPlanner {
  static final double PURGE_DELETED_FRACTION = 0.2;

  /** Files of one partition value to merge into one file. */
  record Bin(Map<String, String> partitionValues, List<AddFile> files, long bytes) {}

  private static final Comparator<AddFile> SMALLEST_FIRST =
      Comparator.comparingLong(AddFile::size)
          .thenComparingLong(AddFile::modificationTime)
          .thenComparing(AddFile::path);

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
    Map<String, List<AddFile>> byPartitionAndTier = new TreeMap<>();
    List<AddFile> mostlyDeleted = new ArrayList<>();
    for (AddFile f : liveFiles) {
      if (isSmall(f, nowMs)) {
        String key = new TreeMap<>(f.partitionValues()) + "#" + tier(f.size(), minFiles);
        byPartitionAndTier.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
      }
      if (mostlyDeleted(f)) {
        mostlyDeleted.add(f);
      }
    }
    List<Bin> bins = new ArrayList<>();
    for (List<AddFile> files : byPartitionAndTier.values()) {
      if (files.size() >= minFiles) {
        files.sort(SMALLEST_FIRST);
        bins.addAll(pack(files));
      }
    }
    bins.sort(
        Comparator.comparingInt((Bin b) -> b.files().size())
            .reversed()
            .thenComparing(b -> b.files().get(0).path()));
    Set<String> binned = new HashSet<>();
    bins.forEach(b -> b.files().forEach(f -> binned.add(f.path())));
    mostlyDeleted.stream()
        .filter(f -> !binned.contains(f.path()))
        .sorted(Comparator.comparing(AddFile::path))
        .forEach(f -> bins.add(new Bin(f.partitionValues(), List.of(f), f.size())));
    return bins;
  }

  /**
   * A file (of any size) whose deletion vector deletes at least {@value #PURGE_DELETED_FRACTION} of
   * its rows: rewritten alone without them, since every reader decodes each deleted row to drop it,
   * and a delete-heavy stream would otherwise keep the table's bytes growing.
   */
  static boolean mostlyDeleted(AddFile f) {
    long rows = f.numRecords();
    return rows > 0 && f.deletedRows() >= PURGE_DELETED_FRACTION * rows;
  }

  /** The size tier of a file: files of one tier are within a factor {@code minFiles} in size. */
  static int tier(long sizeBytes, int minFiles) {
    return (int) Math.floor(Math.log(Math.max(1, sizeBytes)) / Math.log(minFiles));
  }

  /**
   * Small, settled, and with stats to merge (a file with a deletion vector is merged without its
   * deleted rows).
   */
  boolean isSmall(AddFile f, long nowMs) {
    return f.size() < targetBytes / 2
        && nowMs - f.modificationTime() >= minAgeMs
        && f.stats() != null
        && !f.stats().isBlank();
  }

  /**
   * Consecutive runs of at most the target size. A run is worth merging with minFiles files, or
   * with fewer (two at least) when it makes a file that is no longer small: in the top tier
   * minFiles files may not fit in the target.
   */
  private List<Bin> pack(List<AddFile> files) {
    List<Bin> bins = new ArrayList<>();
    List<AddFile> run = new ArrayList<>();
    long bytes = 0;
    for (AddFile f : files) {
      if (!run.isEmpty() && bytes + f.size() > targetBytes) {
        addIfWorthIt(bins, run, bytes);
        run = new ArrayList<>();
        bytes = 0;
      }
      run.add(f);
      bytes += f.size();
    }
    addIfWorthIt(bins, run, bytes);
    return bins;
  }

  private void addIfWorthIt(List<Bin> bins, List<AddFile> run, long bytes) {
    if (run.size() >= minFiles || (run.size() >= 2 && bytes >= targetBytes / 2)) {
      bins.add(new Bin(run.get(0).partitionValues(), List.copyOf(run), bytes));
    }
  }
}
