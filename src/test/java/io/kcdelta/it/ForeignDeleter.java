package io.kcdelta.it;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.kcdelta.testutil.ParquetRows;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopOutputFile;

/**
 * Another writer of a file:// table, in its own JVM, deleting rows the way Spark's DELETE does: it
 * rewrites one live file without its rows whose id ends in 3, and commits the file's remove and the
 * new file's add (dataChange=true, no stats, a Spark-like name). A conflict with a commit that
 * removed the same file first drops the attempt. After each commit it appends the deleted ids to
 * the output file and prints DELETED; a conflict prints CONFLICT.
 *
 * <p>Args: tablePath durationMs deletedIdsFile
 */
public final class ForeignDeleter {

  public static void main(String[] args) throws Exception {
    String table = args[0];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[1]);
    java.nio.file.Path out = java.nio.file.Path.of(args[2]);
    Files.writeString(out, "", StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
    Path root = new Path(table);
    DeltaLog log = DeltaLog.forTable(conf, root);
    Random random = new Random(11);
    while (System.currentTimeMillis() < deadline) {
      Thread.sleep(150);
      OptimisticTransaction txn = log.startTransaction();
      List<AddFile> live =
          new ArrayList<>(log.getSnapshotForVersionAsOf(txn.readVersion()).getAllFiles());
      if (live.isEmpty()) {
        continue;
      }
      AddFile victim = live.get(random.nextInt(live.size()));
      Path file = new Path(root, new Path(URI.create(victim.getPath()).getPath()));
      List<Group> rows = ParquetRows.read(conf, file);
      List<Group> kept = new ArrayList<>();
      List<Long> deleted = new ArrayList<>();
      for (Group row : rows) {
        long id = row.getLong("id", 0);
        if (id % 10 == 3) {
          deleted.add(id);
        } else {
          kept.add(row);
        }
      }
      if (deleted.isEmpty()) {
        continue;
      }
      List<Action> actions = new ArrayList<>();
      long now = System.currentTimeMillis();
      actions.add(victim.remove(now, true));
      Path rewritten = null;
      if (!kept.isEmpty()) {
        rewritten =
            new Path(file.getParent(), "part-00000-" + UUID.randomUUID() + ".c000.snappy.parquet");
        try (ParquetWriter<Group> w =
            ExampleParquetWriter.builder(HadoopOutputFile.fromPath(rewritten, conf))
                .withConf(conf)
                .withType(ParquetRows.schema(conf, file))
                .build()) {
          for (Group row : kept) {
            w.write(row);
          }
        }
        long size = rewritten.getFileSystem(conf).getFileStatus(rewritten).getLen();
        actions.add(
            AddFile.builder(
                    root.toUri().relativize(rewritten.toUri()).toString(),
                    victim.getPartitionValues(),
                    size,
                    now,
                    true)
                .build());
      }
      try {
        long version =
            txn.commit(actions, new Operation(Operation.Name.DELETE), "foreign-deleter")
                .getVersion();
        StringBuilder ids = new StringBuilder();
        deleted.forEach(id -> ids.append(id).append('\n'));
        Files.writeString(out, ids, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        System.out.println(
            "DELETED " + deleted.size() + " rows of " + victim.getPath() + " in " + version);
      } catch (DeltaConcurrentModificationException e) {
        if (rewritten != null) {
          rewritten.getFileSystem(conf).delete(rewritten, false);
        }
        System.out.println("CONFLICT " + e.getClass().getSimpleName() + " on " + victim.getPath());
      }
    }
  }
}
