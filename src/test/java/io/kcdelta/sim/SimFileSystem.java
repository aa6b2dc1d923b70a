package io.kcdelta.sim;

import io.kcdelta.testutil.InterceptedLocalFileSystem;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The local file system, with the {@link SimFaults} of the path's schedule applied to the
 * connector's data files (part-*).
 */
public class SimFileSystem extends InterceptedLocalFileSystem {

  /**
   * Without Hadoop's native library every permission change forks a chmod: irrelevant here, and
   * slow.
   */
  @Override
  public void setPermission(Path p, FsPermission permission) {}

  private static final Path WORKING_DIRECTORY =
      new Path(new File(System.getProperty("user.dir")).toURI());

  /**
   * Hadoop makes a file system per call here (fs.file.impl.disable.cache: the JVM-wide cache would
   * hand other tests' local file system to the simulation, or this one to them), and each
   * constructor qualifies the working directory through regexes again.
   */
  @Override
  protected Path getInitialWorkingDirectory() {
    return WORKING_DIRECTORY;
  }

  /**
   * One stat, without owner and permissions. RawLocalFileSystem builds each status through regex
   * path normalisation, and Delta lists the whole _delta_log at every snapshot update and stats
   * each file it opens: a tenth of the simulation's CPU. Length, kind, time and path are what Delta
   * and Parquet read.
   */
  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return statusOf(pathToFile(f), makeQualified(f).toUri());
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    File dir = pathToFile(f);
    String[] names = dir.list();
    if (names == null) {
      return new FileStatus[] {getFileStatus(f)}; // a file, or FileNotFoundException
    }
    URI parent = makeQualified(f).toUri();
    FileStatus[] out = new FileStatus[names.length];
    for (int i = 0; i < names.length; i++) {
      out[i] = statusOf(new File(dir, names[i]), child(parent, names[i]));
    }
    return out;
  }

  private FileStatus statusOf(File file, URI qualified) throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file.toPath(), BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException("File " + qualified + " does not exist");
    }
    Path path = new Path(qualified);
    return new FileStatus(
        a.size(),
        a.isDirectory(),
        1,
        getDefaultBlockSize(path),
        a.lastModifiedTime().toMillis(),
        path);
  }

  private static URI child(URI parent, String name) {
    try {
      return new URI(
          parent.getScheme(), parent.getAuthority(), parent.getPath() + "/" + name, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static boolean isDataFile(Path f) {
    return f.getName().startsWith("part-");
  }

  @Override
  protected void beforeCreate(Path f) throws IOException {
    if (isDataFile(f)) {
      SimFaults.maybeFail(SimFaults.Kind.DATA_FILE_CREATE, f);
    }
  }

  @Override
  protected FSDataOutputStream created(Path f, FSDataOutputStream out) throws IOException {
    if (!isDataFile(f)) {
      return out;
    }
    OutputStream failingClose =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            out.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
          }

          @Override
          public void close() throws IOException {
            out.close();
            SimFaults.maybeFail(SimFaults.Kind.DATA_FILE_CLOSE, f);
          }
        };
    return new FSDataOutputStream(failingClose, statistics, out.getPos());
  }
}
