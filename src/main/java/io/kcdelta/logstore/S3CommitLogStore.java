package io.kcdelta.logstore;

import io.delta.storage.CloseableIterator;
import io.delta.storage.HadoopFileSystemLogStore;
import io.delta.storage.LineCloseableIterator;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
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

/**
 * What the connector's S3 log stores share besides how they claim a version: listing the log from a
 * version with one LIST, reading commit files from a JVM-wide cache or with their listed status (no
 * HEAD), and writes that skip S3A's existence probes where the caller already knows.
 */
abstract class S3CommitLogStore extends HadoopFileSystemLogStore {
  static final Pattern DELTA_FILE = Pattern.compile("\\d{20}\\.json");
  static final String TEMP_DIR = ".tmp";
  static final String S3A_CREATE_PERFORMANCE = "fs.s3a.create.performance";
  private static final String OPEN_READ_POLICY = "fs.option.openfile.read.policy";

  /**
   * Shared by the stores of a JVM: the tasks of a connector in one worker read the same commits.
   */
  private static final CommitFileCache COMMIT_FILES = new CommitFileCache(32L << 20, 1L << 20);

  /** Commit files of the last listing, for {@link #read}: one store per DeltaLog, so one table. */
  private final ListedCommits listedCommits = new ListedCommits();

  S3CommitLogStore(Configuration hadoopConf) {
    super(hadoopConf);
  }

  /** The log's files from {@code path}'s name on, remembered for {@link #read}. */
  final Iterator<FileStatus> listCommits(FileSystem fs, Path path) throws IOException {
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
  static List<FileStatus> listDirectoryFrom(FileSystem fs, Path dir, String from)
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
   *       content hash on S3), because a worker's commit groups and Kernel read the same commits
   *       again for every new snapshot and every conflict check;
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

  /**
   * Writes {@code path} at once if it is not a commit file ({@code _last_checkpoint}: the last
   * writer wins by design, and an S3 PUT becomes visible whole) and returns null; for a commit file
   * ({@code N.json}, overwrite=false) returns its qualified path for the store to claim.
   */
  static Path commitFileOrWrite(
      FileSystem fs, Path path, Iterator<String> actions, boolean overwrite) throws IOException {
    Path file = stripUserInfo(fs.makeQualified(path));
    if (overwrite || !DELTA_FILE.matcher(file.getName()).matches()) {
      writeFile(fs, file, actions, overwrite);
      return null;
    }
    return file;
  }

  static void writeFile(FileSystem fs, Path file, Iterator<String> lines, boolean overwrite)
      throws IOException {
    try (OutputStream out = fs.create(file, overwrite)) {
      while (lines.hasNext()) {
        out.write((lines.next() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  static byte[] toBytes(Iterator<String> lines) {
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
  static FSDataOutputStream createUnchecked(FileSystem fs, Path path) throws IOException {
    FSDataOutputStreamBuilder builder = fs.createFile(path);
    builder.overwrite(true);
    builder.opt(S3A_CREATE_PERFORMANCE, true);
    return (FSDataOutputStream) builder.build();
  }

  /** A single HEAD on S3A, where {@code exists} also lists to look for a directory of that name. */
  @SuppressWarnings("deprecation")
  static boolean isFile(FileSystem fs, Path path) throws IOException {
    return fs.isFile(path);
  }

  static FSDataInputStream awaitOpen(FutureDataInputStreamBuilder builder) throws IOException {
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

  static String deltaFileName(long version) {
    return String.format("%020d.json", version);
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
