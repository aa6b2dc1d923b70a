package io.kcdelta.logstore;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * S3A that runs another writer's step right after this one looked for a file, as a writer in
 * another JVM may: scripts the race between a check and what follows it. Put on a configuration
 * with {@code fs.s3a.impl} and {@code fs.s3a.impl.disable.cache=true}.
 */
public class InterleavingS3AFileSystem extends S3AFileSystem {

  /** Another writer's step. */
  interface Step {
    void run() throws IOException;
  }

  private static final AtomicReference<Map.Entry<String, Step>> ARMED = new AtomicReference<>();

  /** The next look for {@code path} answers what it found before {@code step} ran. */
  static void afterNextLookFor(Path path, Step step) {
    ARMED.set(Map.entry(path.toString(), step));
  }

  @Override
  @SuppressWarnings("deprecation")
  public boolean isFile(Path f) throws IOException {
    boolean found = super.isFile(f);
    Map.Entry<String, Step> armed = ARMED.get();
    if (armed != null
        && armed.getKey().equals(makeQualified(f).toString())
        && ARMED.compareAndSet(armed, null)) {
      armed.getValue().run();
    }
    return found;
  }
}
