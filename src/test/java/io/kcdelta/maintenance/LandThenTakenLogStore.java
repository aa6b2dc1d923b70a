package io.kcdelta.maintenance;

import io.kcdelta.logstore.LocalFileLogStore;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The connector's file:// log store whose next commit, once armed, lands and then answers "version
 * taken": what a conditional create says when its first attempt landed, the answer was lost, and
 * the retry found the file there.
 */
public class LandThenTakenLogStore extends LocalFileLogStore {
  static final AtomicBoolean ARMED = new AtomicBoolean();

  public LandThenTakenLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    super.write(path, actions, overwrite, conf);
    if (!overwrite && ARMED.compareAndSet(true, false)) {
      throw new FileAlreadyExistsException(path.toString());
    }
  }
}
