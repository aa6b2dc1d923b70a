package io.kcdelta.sim;

import io.delta.storage.LocalLogStore;
import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's local log store with the {@link SimFaults} of the path's schedule applied to commits
 * (writes of N.json).
 */
public class SimLogStore extends LocalLogStore {
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
    super.write(path, actions, false, conf);
    SimFaults.maybeFail(SimFaults.Kind.COMMIT_AFTER, path);
  }
}
