package io.kcdelta.maintenance;

import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.ColumnMapping;
import io.kcdelta.delta.CommitPlan;
import io.kcdelta.delta.CommitPlanner;
import io.kcdelta.delta.CommitResult;
import io.kcdelta.delta.LiveFiles;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.RemoveFile;
import io.kcdelta.delta.TableFeature;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import io.kcdelta.delta.dv.DeletionVectorFiles;
import io.kcdelta.parquet.DataFileNames;
import io.kcdelta.parquet.StatsMerge;
import io.kcdelta.schema.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
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
 * <p>Why it is safe beside other writers: the files are picked from one snapshot, and the commit is
 * planned against every commit made since (the Delta layer hands the planner each winner): one that
 * removed any of the same files (a Spark OPTIMIZE or DELETE, another compactor) or changed the
 * schema or protocol drops ours, and we delete the new file; appends never touch the files we
 * remove, so they never conflict.
 *
 * <p>Files with deletion vectors are merged without their deleted rows, and a file whose vector
 * deletes much of it is rewritten alone: the vector is read from the snapshot the files are picked
 * from, so a concurrent commit that changes it (a DELETE or an upsert: the remove of the file with
 * its old vector, the add with the new) removes one of our inputs and drops our commit, and no row
 * it deletes comes back.
 *
 * <p>Not compacted: tables with row tracking (the rewritten rows would need their row ids carried
 * over).
 */
final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  /** What one attempt did. */
  sealed interface Result permits NothingToDo, Compacted, Conflicted {}

  /** No partition value has enough small files. */
  record NothingToDo() implements Result {}

  /**
   * {@code files} files of {@code bytes} bytes became one of {@code newBytes} in {@code version},
   * holding {@code rows} rows: theirs less the {@code purgedRows} their deletion vectors deleted (a
   * file of none is not added).
   */
  record Compacted(long version, int files, long bytes, long newBytes, long rows, long purgedRows)
      implements Result {}

  /** A concurrent commit removed some of the files first, or changed the table; nothing changed. */
  record Conflicted(String reason) implements Result {}

  private final TableLog log;
  private final Path root;
  private final Configuration conf;
  private final CompactionPlanner planner;
  private final FileRewriter rewriter;
  private final DataFileNames names;

  Compactor(
      TableLog log,
      Configuration conf,
      CompactionPlanner planner,
      FileRewriter rewriter,
      DataFileNames names) {
    this.log = log;
    this.root = log.root();
    this.conf = conf;
    this.planner = planner;
    this.rewriter = rewriter;
    this.names = names;
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
    LogState state = log.update();
    if (!state.exists() || state.protocol().supports(TableFeature.ROW_TRACKING)) {
      return new NothingToDo();
    }
    LiveFiles live = log.liveFiles();
    if (live == null) {
      return new NothingToDo();
    }
    for (CompactionPlanner.Bin bin : planner.plan(live.files(), nowMs)) {
      List<FileRewriter.Footer> footers = new ArrayList<>();
      for (AddFile f : bin.files()) {
        footers.add(rewriter.footer(absolute(f)));
      }
      List<Integer> same = FileRewriter.largestSameSchema(footers);
      if (same.size() < 2 && bin.files().get(same.get(0)).deletedRows() == 0) {
        continue;
      }
      return compact(
          live.version(),
          state.metadata(),
          same.stream().map(i -> bin.files().get(i)).toList(),
          same.stream().map(footers::get).toList(),
          stop);
    }
    return new NothingToDo();
  }

  private Result compact(
      long readVersion,
      Metadata metadata,
      List<AddFile> inputs,
      List<FileRewriter.Footer> footers,
      BooleanSupplier stop)
      throws IOException {
    List<Path> paths = inputs.stream().map(this::absolute).toList();
    List<DeletionVector> deleted = deletedRows(inputs);
    long purged = inputs.stream().mapToLong(AddFile::deletedRows).sum();
    Path output = new Path(paths.get(0).getParent(), names.next());
    long rows = rewriter.merge(paths, footers, deleted, output, stop);
    FileSystem fs = output.getFileSystem(conf);
    String stats =
        StatsMerge.merge(
            inputs.stream().map(AddFile::stats).toList(), dataSchema(metadata), purged);
    if (stats != null && !stats.startsWith("{\"numRecords\":" + rows + ",")) {
      fs.delete(output, false);
      throw new IOException(
          "The files' stats (less their deleted rows) count other rows than the "
              + rows
              + " read from them; not compacting "
              + inputs.stream().map(AddFile::path).toList());
    }
    long newBytes = fs.getFileStatus(output).getLen();
    long bytes = inputs.stream().mapToLong(AddFile::size).sum();
    String outputPath = null;
    if (rows > 0) {
      outputPath = LogPaths.relative(root, output);
    } else {
      // Every row was deleted: the files go, and nothing takes their place.
      fs.delete(output, false);
      newBytes = 0;
    }
    Rewrite rewrite = new Rewrite(readVersion, inputs, outputPath, newBytes, stats, inputs.size());
    CommitResult result = log.commit(rewrite);
    if (result.committed()) {
      return new Compacted(result.version(), inputs.size(), bytes, newBytes, rows, purged);
    }
    if (rewrite.landedBefore) {
      // An attempt whose answer was lost landed, and the retry found its version taken: the new
      // file is the table's now.
      LOG.info("Compaction of {} files in {} landed in an earlier attempt", inputs.size(), root);
      return new Compacted(-1, inputs.size(), bytes, newBytes, rows, purged);
    }
    if (outputPath != null) {
      fs.delete(output, false);
    }
    LOG.info(
        "Compaction of {} files in {} dropped: {} (the new file is deleted)",
        inputs.size(),
        root,
        rewrite.conflict);
    return new Conflicted(rewrite.conflict);
  }

  /** The commit of one rewrite, planned against every commit since its files were read. */
  private final class Rewrite implements CommitPlanner {
    private final long readVersion;
    private final List<AddFile> inputs;
    private final Set<String> inputPaths;
    private final String outputPath;
    private final long newBytes;
    private final String stats;
    private final int files;
    String conflict;
    boolean landedBefore;
    private boolean first = true;

    Rewrite(
        long readVersion,
        List<AddFile> inputs,
        String outputPath,
        long newBytes,
        String stats,
        int files) {
      this.readVersion = readVersion;
      this.inputs = inputs;
      this.inputPaths = inputs.stream().map(AddFile::path).collect(Collectors.toSet());
      this.outputPath = outputPath;
      this.newBytes = newBytes;
      this.stats = stats;
      this.files = files;
    }

    @Override
    public CommitPlan plan(LogState base, List<LogCommit> since) {
      List<LogCommit> winners = first ? log.commits(readVersion + 1, base.version()) : since;
      first = false;
      if (winners == null) {
        conflict = "too many commits since the files were read";
        return null;
      }
      for (LogCommit c : winners) {
        if (c.metadata() != null || c.protocol() != null) {
          conflict = "version " + c.version() + " changed the table's metadata or protocol";
          return null;
        }
        for (AddFile add : c.adds()) {
          if (outputPath != null && add.path().equals(outputPath)) {
            landedBefore = true;
            return null;
          }
        }
        for (RemoveFile remove : c.removes()) {
          if (inputPaths.contains(remove.path())) {
            conflict = "version " + c.version() + " removed " + remove.path();
            return null;
          }
        }
      }
      long now = System.currentTimeMillis();
      List<RemoveFile> removes = new ArrayList<>();
      for (AddFile f : inputs) {
        removes.add(f.remove(now, false));
      }
      List<AddFile> added =
          outputPath == null
              ? List.of()
              : List.of(
                  AddFile.of(
                      outputPath, inputs.get(0).partitionValues(), newBytes, now, false, stats));
      return new CommitPlan(
          null,
          added,
          removes,
          List.of(),
          "OPTIMIZE",
          Map.of("operation", "compaction", "numRemovedFiles", Integer.toString(files)),
          false,
          Map.of());
    }
  }

  /** Per input, the rows its deletion vector deletes (null: it has none). */
  private List<DeletionVector> deletedRows(List<AddFile> inputs) throws IOException {
    DeletionVectorFiles vectors = new DeletionVectorFiles(root, conf);
    List<DeletionVector> out = new ArrayList<>();
    for (AddFile f : inputs) {
      DeletionVectorDescriptor d = f.deletionVectorDescriptor();
      out.add(d == null ? null : vectors.read(d));
    }
    return out;
  }

  private Path absolute(AddFile f) {
    return LogPaths.absolute(root, f.path());
  }

  /** The columns the data files hold, by their names there: partition columns live in the path. */
  private static StructType dataSchema(Metadata metadata) {
    List<String> partitions = metadata.partitionColumns();
    StructType data =
        new StructType(
            metadata.schema().fields().stream()
                .filter(f -> !partitions.contains(f.name()))
                .toList());
    return ColumnMapping.physicalSchema(data, metadata);
  }
}
