package io.kcdelta.table;

import io.kcdelta.testutil.InterceptedLocalFileSystem;
import java.io.IOException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The local file system, except that creating Parquet files fails while {@link #failParquet} or
 * {@link #bug} is set, and listing a Delta log (how a table is read) fails while {@link
 * #failLogReads} is set.
 */
public class FailingLocalFileSystem extends InterceptedLocalFileSystem {
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
  protected void beforeCreate(Path f) throws IOException {
    RuntimeException injected = bug;
    if (injected != null && f.getName().endsWith(".parquet")) {
      throw injected;
    }
    if (failParquet && f.getName().endsWith(".parquet")) {
      throw new IOException("injected: storage unavailable");
    }
  }
}
