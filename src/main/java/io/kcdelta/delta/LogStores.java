package io.kcdelta.delta;

import io.delta.storage.LogStore;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The log store of a table, by the setting Delta's writers use for it: {@code
 * delta.logStore.<scheme>.impl} names an {@link LogStore} class (the connector's configuration sets
 * it from {@code delta.log.store}). Without one, Delta's default for the scheme.
 */
final class LogStores {
  static final String KEY = "delta.logStore.%s.impl";

  private LogStores() {}

  static String className(Path root, Configuration conf) {
    String scheme = scheme(root);
    String configured = conf.get(String.format(KEY, scheme));
    if (configured != null && !configured.isBlank()) {
      return configured.trim();
    }
    return switch (scheme) {
      case "s3", "s3a", "s3n" -> "io.delta.storage.S3SingleDriverLogStore";
      default -> "io.delta.storage.HDFSLogStore";
    };
  }

  static String scheme(Path root) {
    String scheme = root.toUri().getScheme();
    return scheme == null ? "file" : scheme.toLowerCase(Locale.ROOT);
  }

  static LogStore create(String className, Configuration conf) {
    try {
      ClassLoader loader =
          conf.getClassLoader() != null ? conf.getClassLoader() : LogStores.class.getClassLoader();
      return Class.forName(className, true, loader)
          .asSubclass(LogStore.class)
          .getConstructor(Configuration.class)
          .newInstance(conf);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException(
          "Cannot create the Delta log store " + className + ": " + e, e);
    }
  }
}
