package io.kcdelta.it;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.io.TempDir;

/** The core test on a local file:// table with the filesystem log store. */
class FileSystemCoreSinkIT extends AbstractCoreSinkIT {
  @TempDir Path dir;

  @Override
  String tablePath() {
    return dir.resolve("orders").toUri().toString();
  }

  @Override
  Map<String, String> storageConfig() {
    return Map.of();
  }

  @Override
  Configuration readerConf() {
    return new Configuration();
  }
}
