package io.kcdelta.it.infra;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;

/**
 * An s3proxy (S3 API) server inside this JVM on 127.0.0.1, for tests.
 *
 * <pre>
 *   try (S3Proxy s3 = S3Proxy.inMemory()) {                 // or S3Proxy.onDisk(dir)
 *       Configuration conf = s3.hadoopConf();               // s3a:// against it
 *       String table = s3.uri("tables/orders");             // s3a://BUCKET/tables/orders
 *       s3.stop(); s3.start();                              // same port; on disk, same objects
 *   }
 * </pre>
 *
 * Each instance gets a bucket with a unique name unless one is given. Why: Hadoop caches
 * FileSystems by scheme and bucket, not by endpoint, so two servers serving the same bucket name in
 * one JVM would share one cached S3A client pointed at whichever server came first.
 */
public final class S3Proxy implements AutoCloseable {

  public static final String ACCESS_KEY = "test-access-key";
  public static final String SECRET_KEY = "test-secret-key";
  public static final String REGION = "us-east-1";

  private final Path dataDir;
  private final String bucket;
  private int port;
  private BlobStore blobStore;
  private org.gaul.s3proxy.S3Proxy server;

  /** Whether requests must be signed with {@link #ACCESS_KEY}/{@link #SECRET_KEY}. */
  private boolean authenticated = true;

  private S3Proxy(Path dataDir, String bucket) {
    this.dataDir = dataDir;
    this.bucket = bucket;
  }

  /**
   * Started, in memory, accepting unsigned or wrongly signed requests: for a proxy in front of it
   * that changes signed headers.
   */
  public static S3Proxy inMemoryWithoutAuthentication() {
    S3Proxy s3 = new S3Proxy(null, uniqueBucket());
    s3.authenticated = false;
    return s3.start();
  }

  /** Started, objects in memory (lost on stop), bucket with a unique name. */
  public static S3Proxy inMemory() {
    return new S3Proxy(null, uniqueBucket()).start();
  }

  /**
   * Started, objects as files under {@code dataDir} (kept across stop/start), bucket with a unique
   * name.
   */
  public static S3Proxy onDisk(Path dataDir) {
    return onDisk(dataDir, uniqueBucket());
  }

  public static S3Proxy onDisk(Path dataDir, String bucket) {
    return new S3Proxy(dataDir, bucket).start();
  }

  /**
   * Starts the server and creates the bucket if missing; after {@link #stop()} it comes back on the
   * same port.
   */
  public synchronized S3Proxy start() {
    if (server != null) {
      throw new IllegalStateException("s3proxy is already running on port " + port);
    }
    try {
      Properties props = new Properties();
      if (dataDir != null) {
        Files.createDirectories(dataDir);
        props.setProperty("jclouds.filesystem.basedir", dataDir.toAbsolutePath().toString());
      }
      blobStore = BlobStores.create(dataDir != null ? "filesystem" : "transient", props);
      if (!blobStore.containerExists(bucket)) {
        blobStore.createContainer(bucket);
      }
      server =
          org.gaul.s3proxy.S3Proxy.builder()
              .blobStore(blobStore)
              .endpoint(URI.create("http://127.0.0.1:" + port))
              .awsAuthentication(
                  authenticated ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
                  ACCESS_KEY,
                  SECRET_KEY)
              .build();
      server.start();
      long deadline = System.currentTimeMillis() + 30_000;
      while (!"STARTED".equals(server.getState())) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "s3proxy did not start within 30 s (state " + server.getState() + ")");
        }
        Thread.sleep(10);
      }
      port = server.getPort();
      return this;
    } catch (RuntimeException e) {
      stop();
      throw e;
    } catch (Exception e) {
      stop();
      throw new IllegalStateException("cannot start s3proxy on port " + port, e);
    }
  }

  /** Stops the server; on disk the objects stay. */
  public synchronized void stop() {
    if (server != null) {
      try {
        server.stop();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop s3proxy", e);
      } finally {
        server = null;
      }
    }
    if (blobStore != null) {
      blobStore.close();
      blobStore = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  public int port() {
    return port;
  }

  public String bucket() {
    return bucket;
  }

  /**
   * Another bucket on this server, with a unique name: Hadoop caches S3A file systems by bucket, so
   * tests that must not share one use a bucket each.
   */
  public synchronized String createBucket() {
    String name = uniqueBucket();
    blobStore.createContainer(name);
    return name;
  }

  /** {@code http://127.0.0.1:PORT} */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** {@code s3a://BUCKET/<key>} */
  public String uri(String key) {
    return "s3a://" + bucket + "/" + (key.startsWith("/") ? key.substring(1) : key);
  }

  /** Connector settings (s3.*, aws.*) that point the sink's s3a:// at this server. */
  public Map<String, String> connectorConfig() {
    return Map.of(
        "s3.endpoint",
        endpoint().toString(),
        "s3.region",
        REGION,
        "s3.path.style.access",
        "true",
        "aws.access.key.id",
        ACCESS_KEY,
        "aws.secret.access.key",
        SECRET_KEY);
  }

  /** A Hadoop configuration (with Hadoop's defaults loaded) whose s3a:// talks to this server. */
  public Configuration hadoopConf() {
    Configuration conf = new Configuration();
    applyTo(conf);
    return conf;
  }

  /** Sets the s3a keys for this server on {@code conf}. */
  public void applyTo(Configuration conf) {
    applyTo(conf, endpoint());
  }

  /**
   * Sets the s3a keys for an s3proxy at {@code endpoint}, e.g. in a child JVM that only got the
   * URI.
   */
  public static void applyTo(Configuration conf, URI endpoint) {
    conf.set("fs.s3a.endpoint", endpoint.toString());
    // s3a refuses to start without a region even when the endpoint is explicit.
    conf.set("fs.s3a.endpoint.region", REGION);
    // Virtual-host style would resolve BUCKET.127.0.0.1.
    conf.setBoolean("fs.s3a.path.style.access", true);
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    conf.set(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", ACCESS_KEY);
    conf.set("fs.s3a.secret.key", SECRET_KEY);
    // The default disk buffer writes under hadoop.tmp.dir for every upload; memory is enough here.
    conf.set("fs.s3a.fast.upload.buffer", "array");
  }

  private static String uniqueBucket() {
    return "test-" + UUID.randomUUID().toString().substring(0, 12);
  }
}
