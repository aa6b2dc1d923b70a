package io.kcdelta.maintenance;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.RemoveFile;
import io.delta.standalone.internal.SnapshotImpl;
import io.kcdelta.parquet.DataFileNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and deletes the data files this connector wrote that the table does not reference: left by
 * a crash between upload and commit, a fenced batch whose delete failed, a commit in doubt that did
 * not land.
 *
 * <p>A file is an orphan only if all of these hold: its name is this connector's ({@link
 * DataFileNames}); it is older than the retention; and the log read <em>after</em> the listing
 * references it neither as a live file nor as a removed one it still keeps (a removed file serves
 * time travel until Delta's VACUUM deletes it). Reading the log after listing means a file
 * committed while we listed is seen as referenced; the retention (at least a day) covers a file
 * whose commit is still on its way.
 */
final class OrphanFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);

  private final DeltaLog log;
  private final Path root;
  private final Configuration conf;
  private final DataFileNames names;
  private final long minAgeMs;

  OrphanFiles(DeltaLog log, Path root, Configuration conf, DataFileNames names, long minAgeMs) {
    this.log = log;
    this.root = root;
    this.conf = conf;
    this.names = names;
    this.minAgeMs = minAgeMs;
  }

  /** The orphans as of now: the log is read after the listing. */
  List<Path> find(long nowMs) throws IOException {
    return unreferenced(candidates(nowMs));
  }

  /** Files of ours old enough to be orphans, as listed now. */
  List<Path> candidates(long nowMs) throws IOException {
    List<Path> candidates = new ArrayList<>();
    FileSystem fs = root.getFileSystem(conf);
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
    while (files.hasNext()) {
      LocatedFileStatus f = files.next();
      if (f.isFile()
          && names.isOurs(f.getPath().getName())
          && nowMs - f.getModificationTime() >= minAgeMs
          && !f.getPath().toUri().getPath().contains("/_delta_log/")) {
        candidates.add(f.getPath());
      }
    }
    return candidates;
  }

  /** The candidates the log, read now, references neither as live nor as removed files. */
  List<Path> unreferenced(List<Path> candidates) {
    if (candidates.isEmpty()) {
      return candidates;
    }
    Set<String> referenced = referenced(log.update());
    List<Path> out = new ArrayList<>(candidates);
    out.removeIf(p -> referenced.contains(p.toUri().getPath()));
    return out;
  }

  /** Deletes the orphans found now; returns how many were deleted. */
  int delete(long nowMs) throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    int deleted = 0;
    for (Path orphan : find(nowMs)) {
      if (fs.delete(orphan, false)) {
        deleted++;
        LOG.info("Deleted orphan data file {} (written by this connector, in no commit)", orphan);
      }
    }
    return deleted;
  }

  /** The paths (no scheme) of every file the snapshot holds live or removed. */
  private Set<String> referenced(Snapshot snapshot) {
    Set<String> out = new HashSet<>();
    for (AddFile f : snapshot.getAllFiles()) {
      out.add(pathOf(f.getPath()));
    }
    scala.collection.Iterator<RemoveFile> removed =
        ((SnapshotImpl) snapshot).tombstones().iterator();
    while (removed.hasNext()) {
      out.add(pathOf(removed.next().getPath()));
    }
    return out;
  }

  private String pathOf(String logPath) {
    return LogPaths.absolute(root, logPath).toUri().getPath();
  }
}
