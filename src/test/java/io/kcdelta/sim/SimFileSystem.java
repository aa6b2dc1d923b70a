package io.kcdelta.sim;

import io.kcdelta.testutil.FastLocalFileSystem;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * The local file system, with the {@link SimFaults} of the path's schedule applied to the
 * connector's data files (part-*) and deletion vector files (upsert mode).
 */
public class SimFileSystem extends FastLocalFileSystem {

  private static boolean isDataFile(Path f) {
    return f.getName().startsWith("part-") || f.getName().startsWith("deletion_vector_");
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
