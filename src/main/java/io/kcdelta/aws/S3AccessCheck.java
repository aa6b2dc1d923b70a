package io.kcdelta.aws;

import io.kcdelta.retry.Transience;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * The S3 half of a task's preflight, when it first opens a table: can it list the table's log
 * (s3:ListBucket on the prefix) and read a log file (s3:GetObject)? With the very client and
 * credentials S3A uses, so a wrong secret, an invalid or expired token or a missing permission
 * fails the task in seconds, with a message that names S3, the operation, bucket and prefix, the
 * identity and what to check, instead of at the first commit. (DynamoDB's half is the log store's
 * table check, which the same read of the log runs.)
 *
 * <p>Only refusals of credentials or rights fail here; anything else (S3 unreachable, a missing
 * bucket) is left to the read of the table that follows, which retries or reports it.
 */
public final class S3AccessCheck {
  private static final Logger LOG = LoggerFactory.getLogger(S3AccessCheck.class);

  private final Configuration conf;
  private final Set<String> checked = ConcurrentHashMap.newKeySet();

  public S3AccessCheck(Configuration conf) {
    this.conf = conf;
  }

  /**
   * Checks {@code tablePath} once (s3a:// tables only).
   *
   * @throws UncheckedIOException with an {@link AwsAccessException} when S3 refuses the credentials
   *     or their rights
   */
  public void check(String tablePath) {
    if (!tablePath.startsWith("s3a://") || checked.contains(tablePath)) {
      return;
    }
    Path root = new Path(tablePath);
    S3Client s3;
    try {
      FileSystem fs = root.getFileSystem(conf);
      FileSystem raw = fs instanceof FilterFileSystem f ? f.getRawFileSystem() : fs;
      if (!(raw instanceof S3AFileSystem s3a)) {
        checked.add(tablePath);
        return;
      }
      s3 = s3a.getS3AInternals().getAmazonS3Client("access check at task start");
    } catch (IOException | RuntimeException e) {
      LOG.debug("No S3 access check for {}: {}", tablePath, e.toString());
      return;
    }
    String bucket = root.toUri().getAuthority();
    String key = root.toUri().getPath().replaceFirst("^/", "");
    String prefix = (key.isEmpty() || key.endsWith("/") ? key : key + "/") + "_delta_log/";
    String operation = "ListObjectsV2 (s3:ListBucket) of '" + prefix + "'";
    try {
      ListObjectsV2Response listed =
          s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix).maxKeys(1));
      if (!listed.contents().isEmpty()) {
        String first = listed.contents().get(0).key();
        operation = "GetObject (s3:GetObject) of '" + first + "'";
        s3.getObject(
            b -> b.bucket(bucket).key(first).range("bytes=0-0"), ResponseTransformer.toBytes());
      }
      checked.add(tablePath);
    } catch (SdkException e) {
      Optional<AwsCredentialsException> noCredentials = AwsAuthFailures.credentialsFailure(e);
      if (noCredentials.isPresent() && !Transience.isTransient(e)) {
        throw new UncheckedIOException(
            new AwsAccessException(
                "No credentials for S3 ("
                    + operation
                    + " in bucket '"
                    + bucket
                    + "'): "
                    + noCredentials.get().getMessage(),
                e));
      }
      Optional<AwsAuthFailures.Refusal> refusal = AwsAuthFailures.find(e);
      if (refusal.isPresent() && Transience.refusesCredentials(e)) {
        AwsIdentity identity =
            AwsIdentities.s3UsesConnectorIdentity(conf) ? AwsIdentities.forS3(conf) : null;
        throw new UncheckedIOException(
            new AwsAccessException(
                AwsAuthFailures.s3Refused(operation, tablePath, identity, refusal.get()), e));
      }
      LOG.debug("S3 access check of {} inconclusive: {}", tablePath, e.toString());
    }
  }
}
