package io.kcdelta.table;

import io.delta.storage.LocalLogStore;
import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's local log store whose writers of a commit file exclude each other across instances, as
 * the DynamoDB store's do (LocalLogStore locks only its own instance): for writers racing in one
 * JVM, each with its own DeltaLog.
 */
public class ExclusiveLocalLogStore extends LocalLogStore {
  private static final Object WRITES = new Object();

  public ExclusiveLocalLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    synchronized (WRITES) {
      super.write(path, actions, overwrite, conf);
    }
  }
}
