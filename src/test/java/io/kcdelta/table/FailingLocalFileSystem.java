package io.kcdelta.table;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * The local file system, except that creating Parquet files fails while {@link #failParquet} or
 * {@link #bug} is set, and listing a Delta log (how a table is read) fails while {@link
 * #failLogReads} is set.
 */
public class FailingLocalFileSystem extends RawLocalFileSystem {
  static volatile boolean failParquet;

  /**
   * When set, creating a Parquet file throws this instead: a bug below the writer, not an outage.
   */
  static volatile RuntimeException bug;

  static volatile boolean failLogReads;

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    if (failLogReads && f.toString().contains("_delta_log")) {
      throw new IOException("injected: the Delta log cannot be read");
    }
    return super.listStatus(f);
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
    failIfParquet(f);
    return super.create(f, overwrite, bufferSize, replication, blockSize, progress);
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
    failIfParquet(f);
    return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  private static void failIfParquet(Path f) throws IOException {
    RuntimeException injected = bug;
    if (injected != null && f.getName().endsWith(".parquet")) {
      throw injected;
    }
    if (failParquet && f.getName().endsWith(".parquet")) {
      throw new IOException("injected: storage unavailable");
    }
  }
}
