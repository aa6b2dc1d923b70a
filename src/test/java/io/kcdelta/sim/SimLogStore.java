package io.kcdelta.sim;

import io.delta.storage.LocalLogStore;
import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's local log store with the {@link SimFaults} of the path's schedule applied to commits
 * (writes of N.json). Its writers exclude each other across instances, as the DynamoDB store's do
 * (LocalLogStore locks only its own instance), so simulated workers and the sink's own appends
 * ({@code LogAppender}) may each use one.
 */
public class SimLogStore extends LocalLogStore {
  private static final Object WRITES = new Object();

  public SimLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    if (overwrite) {
      super.write(path, actions, true, conf);
      return;
    }
    SimFaults.maybeFail(SimFaults.Kind.COMMIT_BEFORE, path);
    synchronized (WRITES) {
      super.write(path, actions, false, conf);
    }
    SimFaults.maybeFail(SimFaults.Kind.COMMIT_AFTER, path);
  }
}
