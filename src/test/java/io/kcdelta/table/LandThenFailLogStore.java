package io.kcdelta.table;

import io.delta.storage.LocalLogStore;
import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * A local log store whose next commit, once armed, lands and then reports a failure, as a commit
 * does when the log store won the version but a later step failed (S3 or DynamoDB went away).
 */
public class LandThenFailLogStore extends LocalLogStore {
  static final AtomicBoolean ARMED = new AtomicBoolean();

  public LandThenFailLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    super.write(path, actions, overwrite, conf);
    if (!overwrite && ARMED.compareAndSet(true, false)) {
      throw new IOException(
          "simulated: " + path.getName() + " was written, then the answer was lost");
    }
  }
}
