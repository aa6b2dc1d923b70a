package io.kcdelta.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.RemoveFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrphanFilesTest {
  private static final long DAY = 86_400_000L;
  private static final long NOW = System.currentTimeMillis();

  @TempDir java.nio.file.Path dir;

  /**
   * Random tables: each file is live, removed (kept by the log for time travel), in no commit, or
   * written under a name that is not ours; old or young. Only old files of ours in no commit are
   * deleted; a file the log references is never deleted, whatever its age.
   */
  @Test
  void deletesExactlyTheOldUnreferencedFilesOfOurs() throws Exception {
    Random random = new Random(7);
    for (int round = 0; round < 12; round++) {
      java.nio.file.Path tableDir = dir.resolve("t" + round);
      TestTable table = new TestTable(tableDir);
      table.create(TestTable.ROW);
      FileSystem fs = table.root.getFileSystem(table.conf);
      List<AddFile> adds = new ArrayList<>();
      List<AddFile> toRemove = new ArrayList<>();
      Set<Path> expectedOrphans = new HashSet<>();
      Set<Path> all = new HashSet<>();
      for (int i = 0; i < 20; i++) {
        String p = random.nextBoolean() ? "a" : "b c"; // a partition value that is escaped
        AddFile f = table.write(TestTable.ROW, p, NOW, i);
        Path path = table.absolute(f);
        boolean old = random.nextBoolean();
        fs.setTimes(path, old ? NOW - 2 * DAY : NOW - DAY / 2, -1);
        all.add(path);
        switch (random.nextInt(4)) {
          case 0 -> adds.add(f);
          case 1 -> {
            adds.add(f);
            toRemove.add(f);
          }
          case 2 -> {
            if (old) {
              expectedOrphans.add(path);
            }
          }
          default -> {
            Path foreign = new Path(path.getParent(), "part-00000-" + path.getName().substring(9));
            fs.rename(path, foreign);
            all.remove(path);
            all.add(foreign);
          }
        }
      }
      table.append(adds);
      if (!toRemove.isEmpty()) {
        List<RemoveFile> removes = new ArrayList<>();
        toRemove.forEach(f -> removes.add(f.remove(NOW, true)));
        table.delete(removes);
      }

      OrphanFiles orphans = new OrphanFiles(table.log(), table.conf, table.names, DAY);
      assertEquals(expectedOrphans, Set.copyOf(orphans.find(NOW)), "round " + round);
      assertEquals(expectedOrphans.size(), orphans.delete(NOW));
      for (Path p : all) {
        assertEquals(!expectedOrphans.contains(p), fs.exists(p), p.toString());
      }
      assertTrue(
          table.liveFiles().stream().allMatch(f -> exists(fs, table.absolute(f))),
          "every live file is still there");
    }
  }

  @Test
  void aFileCommittedWhileListingIsNotDeleted() throws Exception {
    TestTable table = new TestTable(dir);
    table.create(TestTable.ROW);
    AddFile f = table.write(TestTable.ROW, "a", NOW, 1);
    FileSystem fs = table.root.getFileSystem(table.conf);
    fs.setTimes(table.absolute(f), NOW - 3 * DAY, -1);
    OrphanFiles orphans = new OrphanFiles(table.log(), table.conf, table.names, DAY);
    List<Path> listed = orphans.candidates(NOW);
    assertEquals(List.of(table.absolute(f)), listed, "old, ours, in no commit when listed");
    table.append(List.of(f));
    // The log is read after the listing: the commit that landed in between is seen.
    assertEquals(List.of(), orphans.unreferenced(listed));
    assertEquals(0, orphans.delete(NOW));
    assertTrue(fs.exists(table.absolute(f)));
  }

  private static boolean exists(FileSystem fs, Path p) {
    try {
      return fs.exists(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
