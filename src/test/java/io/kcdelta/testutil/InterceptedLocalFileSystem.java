package io.kcdelta.testutil;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * The local file system with one place to fail or wrap file creation, whichever of Hadoop's two
 * create signatures a writer calls: the base of the tests' fault-injecting file systems.
 */
public abstract class InterceptedLocalFileSystem extends RawLocalFileSystem {

  /** Called before a file is created; throwing fails the create. */
  protected abstract void beforeCreate(Path f) throws IOException;

  /** The stream the writer gets for a created file. */
  protected FSDataOutputStream created(Path f, FSDataOutputStream out) throws IOException {
    return out;
  }

  @Override
  public FSDataOutputStream create(
      Path f,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress)
      throws IOException {
    beforeCreate(f);
    return created(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress));
  }

  @Override
  public FSDataOutputStream create(
      Path f,
      FsPermission permission,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress)
      throws IOException {
    beforeCreate(f);
    return created(
        f, super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress));
  }
}
