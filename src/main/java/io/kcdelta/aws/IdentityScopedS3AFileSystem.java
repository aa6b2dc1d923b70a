package io.kcdelta.aws;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * An S3A file system per bucket AND per S3A configuration (identity, endpoint, overrides) in this
 * JVM, where Hadoop's own cache keeps one per bucket: two connectors of one worker that write the
 * same bucket as two identities (a role per connector) would otherwise both act as whichever opened
 * the bucket first, and a connector restarted with corrected keys would keep the old ones.
 *
 * <p>Enabled with {@code fs.s3a.impl} and {@code fs.s3a.impl.disable.cache=true}: Hadoop then makes
 * one of these light wrappers per {@code getFileSystem} call, and each delegates to the shared S3A
 * instance of its configuration, which lives as long as the JVM (closing a wrapper leaves it open).
 */
public class IdentityScopedS3AFileSystem extends FilterFileSystem {

  private static final ConcurrentMap<Key, FileSystem> SHARED = new ConcurrentHashMap<>();

  /** The bucket and every setting S3A reads for it (secrets included: equality, never printed). */
  private record Key(String bucket, Map<String, String> settings) {
    @Override
    public String toString() {
      return "Key[" + bucket + "]";
    }
  }

  public IdentityScopedS3AFileSystem() {}

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    this.fs = shared(name, conf);
    super.initialize(name, conf);
  }

  private static FileSystem shared(URI name, Configuration conf) throws IOException {
    Key key = new Key(name.getAuthority(), settings(conf));
    FileSystem known = SHARED.get(key);
    if (known != null) {
      return known;
    }
    S3AFileSystem made = new S3AFileSystem();
    made.initialize(URI.create(name.getScheme() + "://" + name.getAuthority() + "/"), conf);
    FileSystem raced = SHARED.putIfAbsent(key, made);
    if (raced != null) {
      made.close();
      return raced;
    }
    return made;
  }

  private static Map<String, String> settings(Configuration conf) {
    Map<String, String> s = new TreeMap<>(conf.getPropsWithPrefix("fs.s3a."));
    conf.getPropsWithPrefix(AwsIdentityKeys.PREFIX).forEach((k, v) -> s.put("kcdelta:" + k, v));
    String providers = conf.get("hadoop.security.credential.provider.path");
    if (providers != null) {
      s.put("hadoop.security.credential.provider.path", providers);
    }
    return s;
  }

  @Override
  public String getScheme() {
    return "s3a";
  }

  /** The shared S3A instance stays open for the other users of its configuration. */
  @Override
  public void close() {}
}
