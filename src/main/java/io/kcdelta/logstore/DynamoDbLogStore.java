package io.kcdelta.logstore;

import io.delta.storage.CloseableIterator;
import io.delta.storage.HadoopFileSystemLogStore;
import io.delta.storage.LineCloseableIterator;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
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
 * Delta Standalone 3.3.2 picks the LogStore of a path's scheme from the Hadoop key {@code
 * delta.logStore.<scheme>.impl} (also accepted with a {@code spark.} prefix), so for {@code s3a://}
 * tables set {@value DynamoDbLogStoreKeys#LOG_STORE_S3A_IMPL} (and for {@code s3://} {@value
 * DynamoDbLogStoreKeys#LOG_STORE_S3_IMPL}) to {@code io.kcdelta.logstore.DynamoDbLogStore}. The
 * remaining keys are in {@link DynamoDbLogStoreKeys}.
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
 *       FileAlreadyExistsException} (Delta Standalone rebases). Past this point the version is
 *       ours.
 *   <li>Copy the temp file to {@code N.json}.
 *   <li>PutItem {@code complete="true"} with {@code expireTime}.
 * </ol>
 *
 * Failures in 3–4 are logged, not thrown: the version is already won, and the next writer (step 1)
 * or reader ({@link #listFrom}) finishes the job. Writes with overwrite=true ({@code
 * _last_checkpoint}) bypass DynamoDB. Within one JVM, writers and recoverers of the same file are
 * serialized.
 */
public class DynamoDbLogStore extends HadoopFileSystemLogStore {

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbLogStore.class);
  private static final Pattern DELTA_FILE = Pattern.compile("\\d{20}\\.json");
  private static final String TEMP_DIR = ".tmp";
  private static final String S3A_CREATE_PERFORMANCE = "fs.s3a.create.performance";

  /**
   * Static: Delta Standalone creates one store per DeltaLog, but the files they guard are shared.
   */
  private static final PathLocks LOCKS = new PathLocks();

  private static final String OPEN_READ_POLICY = "fs.option.openfile.read.policy";

  /**
   * Shared by the stores of a JVM: the tasks of a connector in one worker read the same commits.
   */
  private static final CommitFileCache COMMIT_FILES = new CommitFileCache(32L << 20, 1L << 20);

  /** Commit files of the last listing, for {@link #read}: one store per DeltaLog, so one table. */
  private final ListedCommits listedCommits = new ListedCommits();

  private final DynamoDbSettings settings;
  private final DynamoDbRetrier retrier;
  private final DynamoDbLogEntries entries;
  private final CommitHook hook;

  /** The constructor Delta Standalone calls reflectively. Connects lazily; never blocks here. */
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

  @Override
  public void write(
      Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
      throws IOException {
    FileSystem fs = path.getFileSystem(hadoopConf);
    Path file = stripUserInfo(fs.makeQualified(path));
    if (overwrite || !DELTA_FILE.matcher(file.getName()).matches()) {
      // _last_checkpoint: last writer wins by design, and an S3 PUT becomes visible whole.
      writeFile(fs, file, actions, overwrite);
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

    if (isFile(fs, file)) {
      throw new FileAlreadyExistsException(file.toString());
    }
    if (version > 0) {
      ensurePreviousVersion(fs, logDir, tablePath, version);
    } else {
      Optional<LogEntry> stale = entries.get(tablePath, fileName);
      if (stale.isPresent() && stale.get().complete()) {
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
    String from = path.getName();
    List<FileStatus> listed = S3ListFrom.listFrom(fs, path.getParent(), from);
    if (listed == null || listed.isEmpty()) {
      // Nothing from there on may mean no directory: listStatus tells, as Delta expects.
      listed = listDirectoryFrom(fs, path.getParent(), from);
    }
    listedCommits.remember(from, listed);
    return listed.iterator();
  }

  /**
   * As HadoopFileSystemLogStore.listFrom, minus its exists() probe of the log directory (on S3A a
   * HEAD and a LIST before the listing's own LIST): listStatus throws FileNotFoundException for a
   * missing directory itself.
   */
  private static List<FileStatus> listDirectoryFrom(FileSystem fs, Path dir, String from)
      throws IOException {
    List<FileStatus> listed = new ArrayList<>();
    for (FileStatus f : fs.listStatus(dir)) {
      if (f.getPath().getName().compareTo(from) >= 0) {
        listed.add(f);
      }
    }
    listed.sort(Comparator.comparing(f -> f.getPath().getName()));
    return listed;
  }

  /**
   * As HadoopFileSystemLogStore.read, but for a commit file that the last {@link #listFrom} listed:
   *
   * <ul>
   *   <li>its content may come from {@link CommitFileCache}, keyed by path, length and ETag (a
   *       content hash on S3), because Delta Standalone reads the same commits again for every new
   *       snapshot and every conflict check;
   *   <li>otherwise it is opened with its listed status, which spares S3A the HEAD it sends before
   *       every open.
   * </ul>
   *
   * Commit files are immutable (created once; a recovery race rewrites the same bytes), so the
   * listed length and ETag stay right.
   */
  @Override
  public CloseableIterator<String> read(Path path, Configuration hadoopConf) throws IOException {
    FileStatus listed = listedCommits.get(path);
    if (listed == null) {
      return super.read(path, hadoopConf);
    }
    CommitFileCache.Key key = CommitFileCache.keyOf(listed);
    byte[] cached = key == null ? null : COMMIT_FILES.get(key);
    if (cached != null) {
      return lines(new ByteArrayInputStream(cached));
    }
    FileSystem fs = path.getFileSystem(hadoopConf);
    FSDataInputStream in =
        awaitOpen(
            fs.openFile(listed.getPath())
                .withFileStatus(listed)
                .opt(OPEN_READ_POLICY, "whole-file"));
    if (key == null || !COMMIT_FILES.fits(listed.getLen())) {
      return lines(in);
    }
    byte[] content;
    try (in) {
      content = in.readAllBytes();
    }
    if (content.length == listed.getLen()) {
      COMMIT_FILES.put(key, content);
    }
    return lines(new ByteArrayInputStream(content));
  }

  private static CloseableIterator<String> lines(InputStream in) {
    return new LineCloseableIterator(
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
  }

  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
    return false;
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

  private static void writeFile(FileSystem fs, Path file, Iterator<String> lines, boolean overwrite)
      throws IOException {
    try (OutputStream out = fs.create(file, overwrite)) {
      while (lines.hasNext()) {
        out.write((lines.next() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private static byte[] toBytes(Iterator<String> lines) {
    StringBuilder sb = new StringBuilder();
    while (lines.hasNext()) {
      sb.append(lines.next()).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * For fresh UUID names, and commit files found absent just before: S3A's probes for an existing
   * file or directory there are pure cost.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static FSDataOutputStream createUnchecked(FileSystem fs, Path path) throws IOException {
    FSDataOutputStreamBuilder builder = fs.createFile(path);
    builder.overwrite(true);
    builder.opt(S3A_CREATE_PERFORMANCE, true);
    return (FSDataOutputStream) builder.build();
  }

  /** A single HEAD on S3A, where {@code exists} also lists to look for a directory of that name. */
  @SuppressWarnings("deprecation")
  private static boolean isFile(FileSystem fs, Path path) throws IOException {
    return fs.isFile(path);
  }

  private static FSDataInputStream awaitOpen(FutureDataInputStreamBuilder builder)
      throws IOException {
    try {
      return builder.build().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while opening a commit file");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    }
  }

  /**
   * The statuses of the commit files ({@code NNN.json}) of the latest listing, by qualified path,
   * and of up to {@link #MAX_EARLIER} commits below where it started, from earlier listings of the
   * same directory. Why those: a listing starts at the last checkpoint, but a reader that knew the
   * table before that checkpoint (the sink's txn versions) reads the commits since, which are then
   * only in an earlier listing. A listed name the new listing does not show (a recreated table, a
   * file cleaned up) is dropped with it; commit files are never modified, so a kept status stays
   * right for as long as its file exists.
   */
  static final class ListedCommits {
    static final int MAX_EARLIER = 100;

    /** The commits of one directory by name; dir null: none. */
    private record Listing(Path dir, NavigableMap<String, FileStatus> byName) {}

    private volatile Listing latest = new Listing(null, Collections.emptyNavigableMap());

    /** {@code listing}: of one directory, the names from {@code fromName} on. */
    synchronized void remember(String fromName, List<FileStatus> listing) {
      Path dir = listing.isEmpty() ? null : listing.get(0).getPath().getParent();
      TreeMap<String, FileStatus> byName = new TreeMap<>();
      if (dir != null && dir.equals(latest.dir())) {
        latest.byName().headMap(fromName, false).descendingMap().values().stream()
            .limit(MAX_EARLIER)
            .forEach(f -> byName.put(f.getPath().getName(), f));
      }
      for (FileStatus f : listing) {
        String name = f.getPath().getName();
        if (f.isFile() && DELTA_FILE.matcher(name).matches()) {
          byName.put(name, f);
        }
      }
      latest = new Listing(dir, byName);
    }

    FileStatus get(Path path) {
      Listing l = latest;
      return l.dir() != null && l.dir().equals(path.getParent())
          ? l.byName().get(path.getName())
          : null;
    }
  }

  private long expireTime() {
    return System.currentTimeMillis() / 1000 + settings.ttlSeconds();
  }

  static String deltaFileName(long version) {
    return String.format("%020d.json", version);
  }

  /**
   * The DynamoDB hash key: the qualified table root without user info, e.g. {@code
   * s3a://bucket/warehouse/t}.
   */
  private static String tablePath(Path logDir) {
    return logDir.getParent().toString();
  }

  static Path stripUserInfo(Path path) {
    URI uri = path.toUri();
    if (uri.getRawAuthority() == null || !uri.getRawAuthority().contains("@")) {
      return path;
    }
    String authority = uri.getRawAuthority().substring(uri.getRawAuthority().lastIndexOf('@') + 1);
    try {
      return new Path(
          new URI(uri.getScheme(), authority, uri.getPath(), uri.getQuery(), uri.getFragment()));
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("cannot strip user info from " + path, e);
    }
  }
}
