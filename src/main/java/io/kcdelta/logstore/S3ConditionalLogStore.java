package io.kcdelta.logstore;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta {@code LogStore} for S3 without DynamoDB: {@code N.json} is created with a conditional PUT
 * ({@code If-None-Match: *}), which S3 grants to one writer only; the others get 412, which this
 * store turns into {@link FileAlreadyExistsException}, on which the connector's commit is planned
 * again on the winner's. The same scheme as delta-rs 1.x, so its writers (kafka-delta-ingest,
 * Python jobs) and this connector exclude each other; Spark's DynamoDB log store does not take part
 * in it (see {@link #refuseMixing}).
 *
 * <p>A 412 is not always another writer: when S3A retries a PUT whose first answer was lost, the
 * retry finds our own file. So on 412 the file is read back; if it holds exactly our commit, the
 * version is ours.
 *
 * <p>Once per table and JVM, before the first read or write of its log (reads of a {@value
 * #READ_ONLY} configuration excepted), the store checks what it relies on: that the endpoint
 * honours {@code If-None-Match} (a second conditional create of a probe object under {@code
 * _delta_log/.tmp/} must fail; an S3-compatible store that ignores the header would let two writers
 * take one version and silently lose commits), and that the DynamoDB log store does not hold
 * entries for this table.
 *
 * <p>Enabled for {@code delta.log.store=s3-conditional} through {@code delta.logStore.s3a.impl}.
 * Needs Hadoop 3.4.2+ (the builder option {@value #CONDITIONAL_CREATE}).
 */
public class S3ConditionalLogStore extends S3CommitLogStore {
  private static final Logger LOG = LoggerFactory.getLogger(S3ConditionalLogStore.class);

  /** Hadoop's builder option for a create with If-None-Match: *. */
  static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  /** S3A's switch for conditional creates (on by default; we do not rely on the default). */
  public static final String S3A_CONDITIONAL_ENABLED = "fs.s3a.create.conditional.enabled";

  /**
   * Static: there is one store per table log and Kernel call, but the files they guard are shared.
   */
  private static final PathLocks LOCKS = new PathLocks();

  /**
   * Set by readers that never write (bin/delta-sink-status): they skip the checks, which write a
   * probe object and may need permissions a reader does not have.
   */
  public static final String READ_ONLY = "kcdelta.logstore.read.only";

  /** Table roots this JVM checked ({@link #checkTable}). */
  private static final Set<String> CHECKED = ConcurrentHashMap.newKeySet();

  /** The constructor Delta's writers and Kernel call reflectively. */
  public S3ConditionalLogStore(Configuration hadoopConf) {
    super(hadoopConf);
  }

  @Override
  public void write(
      Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
      throws IOException {
    FileSystem fs = path.getFileSystem(hadoopConf);
    Path file = commitFileOrWrite(fs, path, actions, overwrite);
    if (file == null) {
      return;
    }
    checkTable(fs, file.getParent(), hadoopConf);
    byte[] content = toBytes(actions);
    try (PathLocks.Held ignored = LOCKS.acquire(file.toString())) {
      if (!createIfAbsent(fs, file, content) && !holds(fs, file, content)) {
        throw new FileAlreadyExistsException(
            file.toString(), null, "another writer committed this version first");
      }
    }
  }

  @Override
  public Iterator<FileStatus> listFrom(Path path, Configuration hadoopConf) throws IOException {
    FileSystem fs = path.getFileSystem(hadoopConf);
    if (!hadoopConf.getBoolean(READ_ONLY, false)) {
      // A task reads the table when its partitions are assigned: it fails then, not at its first
      // commit, when the table cannot be written safely.
      checkTable(fs, stripUserInfo(fs.makeQualified(path)).getParent(), hadoopConf);
    }
    return listCommits(fs, path);
  }

  /**
   * Creates {@code file} with {@code content} unless it exists.
   *
   * @return false: it existed (S3 answered 412)
   */
  static boolean createIfAbsent(FileSystem fs, Path file, byte[] content) throws IOException {
    try (FSDataOutputStream out = conditionalCreate(fs, file)) {
      out.write(content);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      if (isPreconditionFailed(e)) {
        return false;
      }
      throw e;
    }
    return true;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static FSDataOutputStream conditionalCreate(FileSystem fs, Path file) throws IOException {
    FSDataOutputStreamBuilder builder = fs.createFile(file);
    builder.overwrite(false);
    builder.must(CONDITIONAL_CREATE, true);
    // The condition decides; S3A's HEAD and LIST probes for an existing file would only add calls.
    builder.opt(S3A_CREATE_PERFORMANCE, true);
    return (FSDataOutputStream) builder.build();
  }

  /**
   * S3A reports the 412 of a conditional create as RemoteFileChangedException, with the SDK's
   * S3Exception (status 412) as its cause.
   */
  private static boolean isPreconditionFailed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.hadoop.fs.s3a.RemoteFileChangedException
          || (t instanceof software.amazon.awssdk.awscore.exception.AwsServiceException s
              && s.statusCode() == 412)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code file} holds exactly {@code content}: our own create whose answer was lost. */
  private static boolean holds(FileSystem fs, Path file, byte[] content) throws IOException {
    try (InputStream in = fs.open(file)) {
      byte[] existing = in.readNBytes(content.length + 1);
      return Arrays.equals(existing, content);
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  /**
   * Once per table root and JVM: the endpoint must honour If-None-Match, and the DynamoDB log store
   * must not be in use on the table.
   */
  private static void checkTable(FileSystem fs, Path logDir, Configuration conf)
      throws IOException {
    String root = logDir.getParent().toString();
    if (CHECKED.contains(root)) {
      return;
    }
    probeConditionalCreate(fs, logDir);
    refuseMixing(root, conf);
    CHECKED.add(root);
  }

  /**
   * Creates a probe object twice with If-None-Match: the second must be refused.
   *
   * @throws IllegalStateException the endpoint ignored the condition (a permanent failure)
   */
  static void probeConditionalCreate(FileSystem fs, Path logDir) throws IOException {
    Path probe = new Path(logDir, TEMP_DIR + "/_conditional_create_probe." + UUID.randomUUID());
    byte[] content = "probe".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try {
      if (!createIfAbsent(fs, probe, content)) {
        throw new IOException("a new probe object " + probe + " was reported to exist already");
      }
      if (createIfAbsent(fs, probe, content)) {
        throw new IllegalStateException(
            "The S3 endpoint of "
                + logDir.getParent()
                + " ignores conditional writes: a second create of "
                + probe
                + " with If-None-Match: * succeeded instead of failing with 412. With "
                + "delta.log.store=s3-conditional two writers could both take one log version and "
                + "silently lose commits. Use delta.log.store=dynamodb with this endpoint, or an S3 "
                + "service that supports conditional writes (AWS S3 does since 2024).");
      }
    } finally {
      try {
        fs.delete(probe, false);
      } catch (IOException e) {
        LOG.debug("Could not delete probe {}", probe, e);
      }
    }
  }

  /**
   * Refuses a table that the DynamoDB log store also commits to: its final copy of {@code N.json}
   * is not conditional, so it would overwrite a version this store created. Looked up once, in the
   * DynamoDB table {@code dynamodb.table.name} names, with one short attempt; when that table is
   * not reachable (no table, no credentials, no network) nobody can be using it from here, and the
   * check passes.
   */
  static void refuseMixing(String tableRoot, Configuration conf) throws IOException {
    Optional<LogEntry> entry;
    try {
      DynamoDbSettings s = DynamoDbSettings.from(conf);
      DynamoDbSettings oneShort =
          new DynamoDbSettings(
              s.tableName(),
              s.region(),
              s.endpoint(),
              s.ttlSeconds(),
              false,
              s.identity(),
              1,
              Duration.ZERO,
              Duration.ZERO,
              Duration.ofSeconds(5),
              Duration.ofSeconds(5));
      entry =
          new DynamoDbLogEntries(
                  DynamoDbClients.forSettings(oneShort),
                  new DynamoDbRetrier(oneShort),
                  oneShort.tableName())
              .latest(tableRoot);
    } catch (IOException | RuntimeException e) {
      LOG.debug("DynamoDB log store not reachable for {}; no entries to check", tableRoot, e);
      return;
    }
    if (entry.isPresent()) {
      throw new IllegalStateException(
          "The DynamoDB table '"
              + DynamoDbSettings.from(conf).tableName()
              + "' holds log store entries for "
              + tableRoot
              + " (latest: "
              + entry.get().fileName()
              + "): a writer commits to this table through the DynamoDB log store (Spark's "
              + "S3DynamoDBLogStore, or this connector with delta.log.store=dynamodb). Its commits "
              + "and conditional-write commits do not exclude each other and would lose commits. "
              + "Use delta.log.store=dynamodb for this table, or move every writer to conditional "
              + "writes and delete the table's items from DynamoDB first.");
    }
  }
}
