package io.kcdelta.table;

import io.kcdelta.testutil.InterceptedLocalFileSystem;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The local file system, except that creating Parquet files fails while {@link #failParquet} or
 * {@link #bug} is set, and listing a Delta log (how a table is read) fails while {@link
 * #failLogReads} is set (slowly while {@link #holdFailingLogReads} holds it).
 */
public class FailingLocalFileSystem extends InterceptedLocalFileSystem {
  static volatile boolean failParquet;

  /**
   * When set, creating a Parquet file throws this instead: a bug below the writer, not an outage.
   */
  static volatile RuntimeException bug;

  static volatile boolean failLogReads;

  /** Listings of a Delta log. */
  static final AtomicInteger logListings = new AtomicInteger();

  /** When set, a failing listing of a Delta log waits for it first: a slow outage. */
  static volatile CountDownLatch holdFailingLogReads;

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    if (f.toString().contains("_delta_log")) {
      logListings.incrementAndGet();
    }
    if (failLogReads && f.toString().contains("_delta_log")) {
      CountDownLatch hold = holdFailingLogReads;
      if (hold != null) {
        try {
          hold.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
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
