package io.kcdelta.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactionPlannerTest {
  private static final long TARGET = 1_000;
  private static final long NOW = 1_000_000;
  private static final String STATS = "{\"numRecords\":1}";

  private final CompactionPlanner planner = new CompactionPlanner(TARGET, 4, 10_000);

  private static AddFile file(String name, String p, long size, long modified, String stats) {
    return AddFile.of("p=" + p + "/" + name, Map.of("p", p), size, modified, true, stats);
  }

  private static List<String> paths(CompactionPlanner.Bin bin) {
    return bin.files().stream().map(AddFile::path).toList();
  }

  /**
   * A file whose deletion vector deletes a fifth of its rows or more is a bin of its own, large or
   * too new to merge; one that a run takes is not rewritten twice.
   */
  @Test
  void aFileAFifthDeletedIsABinOfItsOwnUnlessARunTakesIt() {
    String stats = "{\"numRecords\":100}";
    DeletionVectorDescriptor fifth = new DeletionVectorDescriptor("u", "x".repeat(20), 1, 10, 20);
    DeletionVectorDescriptor tenth = new DeletionVectorDescriptor("u", "y".repeat(20), 1, 10, 10);
    CompactionPlanner planner = new CompactionPlanner(1_000, 2, 100);
    List<AddFile> files = new ArrayList<>();
    files.add(file("big-fifth", "a", 5_000, 0, stats).withDeletionVector(fifth, true));
    files.add(file("big-tenth", "a", 5_000, 0, stats).withDeletionVector(tenth, true));
    files.add(file("new-fifth", "a", 10, 950, stats).withDeletionVector(fifth, true));
    files.add(file("small-fifth", "b", 10, 0, stats).withDeletionVector(fifth, true));
    files.add(file("small", "b", 12, 0, stats));

    List<CompactionPlanner.Bin> bins = planner.plan(files, 1_000);

    assertEquals(
        List.of(
            List.of("p=b/small-fifth", "p=b/small"),
            List.of("p=a/big-fifth"),
            List.of("p=a/new-fifth")),
        bins.stream().map(CompactionPlannerTest::paths).toList());
  }

  @Test
  void onlySmallOldFilesWithStatsCount() {
    List<AddFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(file("small" + i, "a", 100, 0, STATS));
    }
    files.add(file("half", "a", TARGET / 2, 0, STATS)); // not below half the target
    files.add(file("young", "a", 100, NOW - 9_999, STATS)); // committed too recently
    files.add(file("nostats", "a", 100, 0, null));

    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);

    assertEquals(1, bins.size());
    assertEquals(
        List.of("p=a/small0", "p=a/small1", "p=a/small2", "p=a/small3"), paths(bins.get(0)));
    assertEquals(400, bins.get(0).bytes());
    assertEquals(Map.of("p", "a"), bins.get(0).partitionValues());
  }

  @Test
  void aPartitionValueNeedsTheMinimumCount() {
    List<AddFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      files.add(file("a" + i, "a", 100, 0, STATS));
    }
    for (int i = 0; i < 5; i++) {
      files.add(file("b" + i, "b", 100, 0, STATS));
    }
    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);
    assertEquals(1, bins.size());
    assertEquals(Map.of("p", "b"), bins.get(0).partitionValues());
  }

  @Test
  void binsHoldAtMostTheTargetSmallestAndOldestFirstAndLeaveShortRunsWaiting() {
    List<AddFile> files = new ArrayList<>();
    // 11 files of 150 bytes: runs of 6 (900 <= 1000), then 5; with a minimum of 4 both qualify.
    for (int i = 10; i >= 0; i--) {
      files.add(file(String.format("f%02d", i), "a", 150, i, STATS));
    }
    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);
    assertEquals(2, bins.size());
    assertEquals(
        List.of("p=a/f00", "p=a/f01", "p=a/f02", "p=a/f03", "p=a/f04", "p=a/f05"),
        paths(bins.get(0)));
    assertEquals(
        List.of("p=a/f06", "p=a/f07", "p=a/f08", "p=a/f09", "p=a/f10"), paths(bins.get(1)));
    for (CompactionPlanner.Bin bin : bins) {
      assertTrue(bin.bytes() <= TARGET);
    }

    // 9 files: a run of 6, and 3 left over wait for more.
    List<CompactionPlanner.Bin> fewer = planner.plan(files.subList(2, 11), NOW);
    assertEquals(1, fewer.size());
    assertEquals(6, fewer.get(0).files().size());
  }

  @Test
  void theBinRemovingMostFilesComesFirst() {
    List<AddFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(file("a" + i, "a", 100, 0, STATS));
    }
    for (int i = 0; i < 7; i++) {
      files.add(file("b" + i, "b", 100, 0, STATS));
    }
    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);
    assertEquals(
        List.of(Map.of("p", "b"), Map.of("p", "a")),
        bins.stream().map(CompactionPlanner.Bin::partitionValues).toList());
  }

  @Test
  void onlyFilesOfOneSizeTierAreMergedTogether() {
    List<AddFile> files = new ArrayList<>();
    // With 4 as the minimum, tiers are powers of 4: 64..255 bytes, 256..1023 bytes.
    files.add(file("merged", "a", 450, 0, STATS)); // an earlier compaction's output, still small
    for (int i = 0; i < 4; i++) {
      files.add(file("new" + i, "a", 100, 0, STATS));
    }
    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);
    assertEquals(1, bins.size());
    assertEquals(List.of("p=a/new0", "p=a/new1", "p=a/new2", "p=a/new3"), paths(bins.get(0)));
    assertEquals(3, CompactionPlanner.tier(100, 4));
    assertEquals(4, CompactionPlanner.tier(450, 4));
  }

  @Test
  void inTheTopTierTwoFilesThatMakeAFileNoLongerSmallAreMerged() {
    // 4 files of 300 bytes do not fit in the target of 1000; 3 do, and make 900 >= 500.
    List<AddFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(file("big" + i, "a", 300, 0, STATS));
    }
    List<CompactionPlanner.Bin> bins = planner.plan(files, NOW);
    assertEquals(1, bins.size());
    assertEquals(List.of("p=a/big0", "p=a/big1", "p=a/big2"), paths(bins.get(0)));
  }
}
