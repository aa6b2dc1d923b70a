package io.kcdelta.maintenance;

import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.TableFeatures;
import io.kcdelta.delta.TableLog;
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

  private final TableLog log;
  private final Path root;
  private final Configuration conf;
  private final DataFileNames names;
  private final long minAgeMs;

  OrphanFiles(TableLog log, Configuration conf, DataFileNames names, long minAgeMs) {
    this.log = log;
    this.root = log.root();
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
    Set<String> referenced = referenced();
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

  /**
   * The paths (no scheme) of every file the log holds live or removed. A vacuum must know every
   * feature of the table it cleans (vacuumProtocolCheck): a feature we do not know might keep files
   * of its own there.
   */
  private Set<String> referenced() {
    LogState state = log.update();
    if (state.exists()) {
      TableFeatures.checkWritable(log.path(), state.protocol(), state.metadata());
    }
    Set<String> out = new HashSet<>();
    for (String path : log.referencedPaths()) {
      out.add(LogPaths.absolute(root, path).toUri().getPath());
    }
    return out;
  }
}
