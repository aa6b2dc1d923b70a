package io.kcdelta.maintenance;

import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.kcdelta.parquet.DataFileNames;
import io.kcdelta.parquet.StatsMerge;
import io.kcdelta.schema.JsonText;
import io.kcdelta.schema.SchemaJson;
import io.kcdelta.schema.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges one run of a table's small files into one file, in one Delta commit that removes them and
 * adds it, both with {@code dataChange=false} and without any txn action: the table's rows and
 * every Kafka offset it holds stay as they were.
 *
 * <p>Why it is safe beside other writers: the files are picked from the very snapshot the commit's
 * transaction read, and the commit removes each of them. Delta Standalone checks every commit that
 * landed since against it: one that removed any of the same files (a Spark OPTIMIZE or DELETE,
 * another compactor) fails ours with a concurrent-modification exception, and we drop the new file;
 * appends never touch the files we remove, so they never conflict. No read predicate is registered,
 * so concurrent appends to the same partition value do not conflict either.
 */
final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  /** What one attempt did. */
  sealed interface Result permits NothingToDo, Compacted, Conflicted {}

  /** No partition value has enough small files. */
  record NothingToDo() implements Result {}

  /**
   * {@code files} files of {@code bytes} bytes became one of {@code newBytes} in {@code version}.
   */
  record Compacted(long version, int files, long bytes, long newBytes, long rows)
      implements Result {}

  /** A concurrent commit removed some of the files first; nothing changed. */
  record Conflicted(String reason) implements Result {}

  private final DeltaLog log;
  private final Path root;
  private final Configuration conf;
  private final CompactionPlanner planner;
  private final FileRewriter rewriter;
  private final DataFileNames names;
  private final String engineInfo;

  Compactor(
      DeltaLog log,
      Path root,
      Configuration conf,
      CompactionPlanner planner,
      FileRewriter rewriter,
      DataFileNames names,
      String engineInfo) {
    this.log = log;
    this.root = root;
    this.conf = conf;
    this.planner = planner;
    this.rewriter = rewriter;
    this.names = names;
    this.engineInfo = engineInfo;
  }

  /**
   * Compacts the first run worth it, if any.
   *
   * @throws IOException reading or writing data files failed (nothing was committed; the new file
   *     is deleted)
   * @throws RuntimeException the commit failed for another reason than a conflict; it may have
   *     landed, so the new file is kept (orphan cleanup deletes it if it did not)
   */
  Result compactOnce(long nowMs, BooleanSupplier stop) throws IOException {
    OptimisticTransaction txn = log.startTransaction();
    if (txn.readVersion() < 0) {
      return new NothingToDo();
    }
    Snapshot snapshot = snapshotOf(txn.readVersion());
    for (CompactionPlanner.Bin bin : planner.plan(snapshot.getAllFiles(), nowMs)) {
      List<FileRewriter.Footer> footers = new ArrayList<>();
      for (AddFile f : bin.files()) {
        footers.add(rewriter.footer(absolute(f)));
      }
      List<Integer> same = FileRewriter.largestSameSchema(footers);
      if (same.size() < 2) {
        continue;
      }
      return compact(
          txn,
          same.stream().map(i -> bin.files().get(i)).toList(),
          same.stream().map(footers::get).toList(),
          stop);
    }
    return new NothingToDo();
  }

  /** The snapshot the transaction read: usually the log's current one. */
  private Snapshot snapshotOf(long version) {
    Snapshot current = log.snapshot();
    return current.getVersion() == version ? current : log.getSnapshotForVersionAsOf(version);
  }

  private Result compact(
      OptimisticTransaction txn,
      List<AddFile> inputs,
      List<FileRewriter.Footer> footers,
      BooleanSupplier stop)
      throws IOException {
    List<Path> paths = inputs.stream().map(this::absolute).toList();
    Path output = new Path(paths.get(0).getParent(), names.next());
    long rows = rewriter.merge(paths, footers, output, stop);
    FileSystem fs = output.getFileSystem(conf);
    String stats =
        StatsMerge.merge(
            inputs.stream().map(AddFile::getStats).toList(), dataSchema(txn.metadata()));
    if (stats != null && !stats.startsWith("{\"numRecords\":" + rows + ",")) {
      fs.delete(output, false);
      throw new IOException(
          "The files' stats count other rows than the "
              + rows
              + " read from them; not compacting "
              + inputs.stream().map(AddFile::getPath).toList());
    }
    long newBytes = fs.getFileStatus(output).getLen();
    long now = System.currentTimeMillis();
    List<Action> actions = new ArrayList<>();
    long bytes = 0;
    for (AddFile f : inputs) {
      actions.add(f.remove(now, false));
      bytes += f.getSize();
    }
    AddFile.Builder added =
        AddFile.builder(
            LogPaths.relative(root, output),
            inputs.get(0).getPartitionValues(),
            newBytes,
            now,
            false);
    if (stats != null) {
      added.stats(JsonText.quote(stats));
    }
    actions.add(added.build());
    CommitResult result;
    try {
      result = txn.commit(actions, operation(inputs.size()), engineInfo);
    } catch (DeltaConcurrentModificationException e) {
      String path = LogPaths.relative(root, output);
      if (log.update().getAllFiles().stream().anyMatch(f -> f.getPath().equals(path))) {
        // The conflict was with our own commit: an attempt whose answer was lost landed, and the
        // retry found its version taken. The new file is the table's now.
        LOG.info("Compaction of {} files in {} landed in an earlier attempt", inputs.size(), root);
        return new Compacted(-1, inputs.size(), bytes, newBytes, rows);
      }
      fs.delete(output, false);
      LOG.info(
          "Compaction of {} files in {} dropped: {} (the new file is deleted)",
          inputs.size(),
          root,
          e.getMessage());
      return new Conflicted(e.getClass().getSimpleName());
    }
    return new Compacted(result.getVersion(), inputs.size(), bytes, newBytes, rows);
  }

  private Path absolute(AddFile f) {
    return LogPaths.absolute(root, f.getPath());
  }

  /** The columns the data files hold: partition columns live in the path. */
  private static StructType dataSchema(Metadata metadata) {
    List<String> partitions = metadata.getPartitionColumns();
    return new StructType(
        SchemaJson.parse(metadata.getSchema().toJson()).fields().stream()
            .filter(f -> !partitions.contains(f.name()))
            .toList());
  }

  private static Operation operation(int files) {
    return new Operation(
        Operation.Name.MANUAL_UPDATE,
        Map.of(
            "operation", JsonText.quote("compaction"),
            "numRemovedFiles", JsonText.quote(Integer.toString(files))));
  }
}
