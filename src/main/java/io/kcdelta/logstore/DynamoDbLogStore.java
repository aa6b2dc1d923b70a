package io.kcdelta.logstore;

import io.kcdelta.aws.AwsIdentities;
import io.kcdelta.aws.AwsIdentity;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.util.Iterator;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Delta {@code LogStore} for S3 that makes "create N.json only if absent" safe across many writers
 * by claiming each version with a conditional PutItem in DynamoDB first. Wire-compatible with
 * Delta's {@code S3DynamoDBLogStore} (same table layout and algorithm, see {@link LogEntry}), so
 * Spark jobs using Delta's store and this one can commit to the same table.
 *
 * <h2>Enabling it</h2>
 *
 * The connector's Delta layer (and Kernel, and Spark) picks the LogStore of a path's scheme from
 * the Hadoop key {@code delta.logStore.<scheme>.impl} (also accepted with a {@code spark.} prefix),
 * so for {@code s3a://} tables set {@value DynamoDbLogStoreKeys#LOG_STORE_S3A_IMPL} (and for {@code
 * s3://} {@value DynamoDbLogStoreKeys#LOG_STORE_S3_IMPL}) to {@code
 * io.kcdelta.logstore.DynamoDbLogStore}. The remaining keys are in {@link DynamoDbLogStoreKeys}.
 *
 * <h2>Writing version N (overwrite=false)</h2>
 *
 * <ol start="0">
 *   <li>{@code N.json} exists → {@link FileAlreadyExistsException}.
 *   <li>N &gt; 0: an incomplete entry for N-1 is recovered first; if N-1 has neither an entry nor a
 *       file, the log has a hole → {@link FileSystemException}. N == 0: a complete entry for 0
 *       without {@code 0.json} means the table was deleted and recreated within the TTL → {@link
 *       FileSystemException}.
 *   <li>Actions go to {@code _delta_log/.tmp/N.json.<uuid>}, then a PutItem {@code
 *       complete="false"} conditional on the key being absent. Condition failed → {@link
 *       FileAlreadyExistsException} (the writer tries the next version). Past this point the
 *       version is ours.
 *   <li>Copy the temp file to {@code N.json}.
 *   <li>PutItem {@code complete="true"} with {@code expireTime}.
 * </ol>
 *
 * Failures in 3–4 are logged, not thrown: the version is already won, and the next writer (step 1)
 * or reader ({@link #listFrom}) finishes the job. Writes with overwrite=true ({@code
 * _last_checkpoint}) bypass DynamoDB. Within one JVM, writers and recoverers of the same file are
 * serialized.
 */
public class DynamoDbLogStore extends S3CommitLogStore {

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbLogStore.class);

  /**
   * Static: there is one store per table log and Kernel call, but the files they guard are shared.
   */
  private static final PathLocks LOCKS = new PathLocks();

  private final DynamoDbSettings settings;
  private final DynamoDbRetrier retrier;
  private final DynamoDbLogEntries entries;
  private final CommitHook hook;

  /**
   * The constructor Delta's writers and Kernel call reflectively. Connects lazily; never blocks
   * here.
   */
  public DynamoDbLogStore(Configuration hadoopConf) {
    this(hadoopConf, CommitHook.NONE);
  }

  DynamoDbLogStore(Configuration hadoopConf, CommitHook hook) {
    super(hadoopConf);
    this.settings = DynamoDbSettings.from(hadoopConf);
    this.retrier = new DynamoDbRetrier(settings);
    this.entries =
        new DynamoDbLogEntries(
            DynamoDbClients.forSettings(settings), retrier, settings.tableName());
    this.hook = hook;
  }

  /** Who this store's DynamoDB calls act as, for the configuration {@code hadoopConf}. */
  public static AwsIdentity identity(Configuration hadoopConf) {
    return AwsIdentities.of(DynamoDbSettings.from(hadoopConf).identity());
  }

  @Override
  public void write(
      Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
      throws IOException {
    FileSystem fs = path.getFileSystem(hadoopConf);
    Path file = commitFileOrWrite(fs, path, actions, overwrite);
    if (file == null) {
      return;
    }
    ensureTable();
    try (PathLocks.Held ignored = LOCKS.acquire(file.toString())) {
      writeDeltaFile(fs, file, actions);
    }
  }

  private void writeDeltaFile(FileSystem fs, Path file, Iterator<String> actions)
      throws IOException {
    Path logDir = file.getParent();
    String tablePath = tablePath(logDir);
    String fileName = file.getName();
    long version = Long.parseLong(fileName.substring(0, 20));

    // The entry of version 0 is read before the look for its file: a writer marks its entry
    // complete only after the file exists, so a complete entry then a missing file means the file
    // was deleted; in the other order another writer's whole commit may land in between.
    Optional<LogEntry> entryOfZero =
        version == 0 ? entries.get(tablePath, fileName) : Optional.empty();
    if (isFile(fs, file)) {
      throw new FileAlreadyExistsException(file.toString());
    }
    if (version > 0) {
      ensurePreviousVersion(fs, logDir, tablePath, version);
    } else {
      if (entryOfZero.isPresent() && entryOfZero.get().complete()) {
        throw new FileSystemException(
            file.toString(),
            null,
            "DynamoDB table '"
                + settings.tableName()
                + "' still holds a completed entry for version 0 of "
                + tablePath
                + " but "
                + fileName
                + " does not exist: the table was deleted and recreated. Delete the items with tablePath="
                + tablePath
                + " from DynamoDB before creating it again");
      }
    }

    String tempPath = TEMP_DIR + "/" + fileName + "." + UUID.randomUUID();
    Path temp = new Path(logDir, tempPath);
    // Kept in memory so publishing N.json needs no read-back of the temp file.
    byte[] content = toBytes(actions);
    try (FSDataOutputStream out = createUnchecked(fs, temp)) {
      out.write(content);
    }
    hook.after(CommitHook.Step.TEMP_WRITTEN, file);

    LogEntry claim = LogEntry.incomplete(tablePath, fileName, tempPath);
    if (!entries.putIfAbsent(claim)) {
      throw new FileAlreadyExistsException(
          file.toString(), null, "another writer committed this version first");
    }
    hook.after(CommitHook.Step.ENTRY_PUT, file);

    try {
      if (!isFile(fs, file)) {
        publish(fs, file, content);
      }
      hook.after(CommitHook.Step.COPIED, file);
      entries.put(claim.asComplete(expireTime()));
    } catch (IOException | SdkException e) {
      // The version is won; throwing would make Delta retry as if it were not, and commit the
      // same actions twice once someone recovers this entry.
      LOG.warn(
          "Commit {} of {} is won but not finished ({}); the next reader or writer of the table "
              + "completes it",
          fileName,
          tablePath,
          e.toString());
    }
  }

  private void ensurePreviousVersion(FileSystem fs, Path logDir, String tablePath, long version)
      throws IOException {
    String previousName = deltaFileName(version - 1);
    Optional<LogEntry> previous = entries.get(tablePath, previousName);
    if (previous.isPresent()) {
      if (!previous.get().complete()) {
        recover(fs, logDir, previous.get());
      }
    } else if (!isFile(fs, new Path(logDir, previousName))) {
      throw new FileSystemException(
          new Path(logDir, deltaFileName(version)).toString(),
          null,
          "cannot commit version "
              + version
              + " of "
              + tablePath
              + ": version "
              + (version - 1)
              + " has neither a DynamoDB entry in table '"
              + settings.tableName()
              + "' nor a file "
              + previousName
              + " (the log would have a hole)");
    }
  }

  /** Finishes a commit whose writer stopped after winning its version. Idempotent. */
  private void recover(FileSystem fs, Path logDir, LogEntry entry) throws IOException {
    Path file = new Path(logDir, entry.fileName());
    try (PathLocks.Held ignored = LOCKS.acquire(file.toString())) {
      if (!isFile(fs, file)) {
        Path temp = new Path(logDir, entry.tempPath());
        byte[] content;
        try (InputStream in = fs.open(temp)) {
          content = in.readAllBytes();
        } catch (FileNotFoundException e) {
          throw new FileNotFoundException(
              "cannot recover "
                  + file
                  + ": DynamoDB says it was won with "
                  + entry.tempPath()
                  + ", which no longer exists");
        }
        publish(fs, file, content);
      }
      entries.put(entry.asComplete(expireTime()));
      LOG.info("Recovered incomplete commit {} of {}", entry.fileName(), entry.tablePath());
    }
  }

  @Override
  public Iterator<FileStatus> listFrom(Path path, Configuration hadoopConf) throws IOException {
    FileSystem fs = path.getFileSystem(hadoopConf);
    Path resolved = stripUserInfo(fs.makeQualified(path));
    Path logDir = resolved.getParent();
    ensureTable();
    // Only the latest entry can be incomplete: a writer of N+1 recovers N before claiming N+1.
    Optional<LogEntry> latest = entries.latest(tablePath(logDir));
    if (latest.isPresent() && !latest.get().complete()) {
      recover(fs, logDir, latest.get());
    }
    return listCommits(fs, path);
  }

  private void ensureTable() throws IOException {
    if (settings.autoCreate()) {
      DynamoDbTableCreator.ensureExists(DynamoDbClients.forSettings(settings), retrier, settings);
    }
  }

  /**
   * Publishes a commit file that the caller has just found absent ({@link #isFile}: the
   * overwrite=false check of step 3, one HEAD). S3A's own overwrite=false create would add a LIST
   * probing for a directory named like the file and still not be atomic; every publisher of a
   * version writes the content of the one temp file named in its DynamoDB entry, so a lost race
   * rewrites identical bytes.
   */
  private static void publish(FileSystem fs, Path to, byte[] content) throws IOException {
    try (FSDataOutputStream out = createUnchecked(fs, to)) {
      out.write(content);
    }
  }

  private long expireTime() {
    return System.currentTimeMillis() / 1000 + settings.ttlSeconds();
  }

  /**
   * The DynamoDB hash key: the qualified table root without user info, e.g. {@code
   * s3a://bucket/warehouse/t}.
   */
  private static String tablePath(Path logDir) {
    return logDir.getParent().toString();
  }
}
