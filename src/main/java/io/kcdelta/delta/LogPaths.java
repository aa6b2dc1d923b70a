package io.kcdelta.delta;

import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.fs.Path;

/** Data file paths as the Delta log writes them: URIs, relative to the table's root or absolute. */
public final class LogPaths {
  private LogPaths() {}

  public static Path absolute(Path root, String logPath) {
    try {
      URI uri = new URI(logPath);
      return uri.isAbsolute() ? new Path(uri) : new Path(root, new Path(uri.getPath()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Delta log path is not a URI: " + logPath, e);
    }
  }

  /** How an add names a file below the root: relative, URI-encoded. */
  public static String relative(Path root, Path file) {
    return root.toUri().relativize(file.toUri()).toString();
  }
}
