package io.kcdelta.sim;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/** The local file system, with the {@link SimFaults} of the path's schedule applied to the connector's data files (part-*). */
public class SimFileSystem extends RawLocalFileSystem {

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    checkCreate(f);
    return wrap(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress));
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    checkCreate(f);
    return wrap(f, super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress));
  }

  /** Without Hadoop's native library every permission change forks a chmod: irrelevant here, and slow. */
  @Override
  public void setPermission(Path p, FsPermission permission) {
  }

  private static boolean isDataFile(Path f) {
    return f.getName().startsWith("part-");
  }

  private static void checkCreate(Path f) throws IOException {
    if (isDataFile(f)) {
      SimFaults.maybeFail(SimFaults.Kind.DATA_FILE_CREATE, f);
    }
  }

  private FSDataOutputStream wrap(Path f, FSDataOutputStream out) throws IOException {
    if (!isDataFile(f)) {
      return out;
    }
    OutputStream failingClose = new OutputStream() {
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
