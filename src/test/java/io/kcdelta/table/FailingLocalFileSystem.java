package io.kcdelta.table;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/** The local file system, except that creating Parquet files fails while {@link #failParquet} or {@link #bug} is set. */
public class FailingLocalFileSystem extends RawLocalFileSystem {
  static volatile boolean failParquet;
  /** When set, creating a Parquet file throws this instead: a bug below the writer, not an outage. */
  static volatile RuntimeException bug;

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    failIfParquet(f);
    return super.create(f, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
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
