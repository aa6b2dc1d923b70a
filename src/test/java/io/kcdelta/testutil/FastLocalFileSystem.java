package io.kcdelta.testutil;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The local file system without what costs tests their time and matters nowhere here: a forked
 * chmod per created file (without Hadoop's native library), regex path work per status. {@code
 * hadoop.fs.file.impl} with {@code hadoop.fs.file.impl.disable.cache=true} puts a table on it.
 */
public class FastLocalFileSystem extends InterceptedLocalFileSystem {

  @Override
  protected void beforeCreate(Path f) throws IOException {}

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
}
