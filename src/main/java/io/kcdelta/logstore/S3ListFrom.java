package io.kcdelta.logstore;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AUtils;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists the files of an S3A directory whose names sort at or after a name, asking S3 only for those
 * (ListObjectsV2 with {@code StartAfter}).
 *
 * <p>Why: Delta reads its log by listing {@code _delta_log} from the last checkpoint on, on every
 * snapshot update, i.e. at least once per commit. A Hadoop {@code listStatus} lists the whole
 * directory, and a log keeps every commit of its retention period (30 days by default: ~260,000
 * files at one commit per 10 s), so each update would page through all of them. With {@code
 * StartAfter} a listing costs what the commits since the checkpoint cost.
 */
final class S3ListFrom {
  private S3ListFrom() {}

  /**
   * The files of {@code dir} named {@code fromName} or later, sorted by name, with their ETags;
   * null when {@code fs} is not S3A or is set to ListObjects V1 ({@code fs.s3a.list.version=1}, for
   * stores without V2): then the caller lists the directory.
   */
  static List<FileStatus> listFrom(FileSystem fs, Path dir, String fromName) throws IOException {
    if (!(fs instanceof S3AFileSystem s3a) || fs.getConf().getInt("fs.s3a.list.version", 2) != 2) {
      return null;
    }
    String prefix = s3a.pathToKey(dir) + "/";
    // StartAfter is exclusive; a proper prefix of fromName sorts before it and after nearly all
    // earlier names. The few between are filtered below.
    String startAfter = prefix + fromName.substring(0, Math.max(0, fromName.length() - 1));
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(s3a.getBucket())
            .prefix(prefix)
            .delimiter("/")
            .startAfter(startAfter)
            .build();
    S3Client s3 = s3a.getS3AInternals().getAmazonS3Client("list a Delta log from a version");
    long blockSize = s3a.getDefaultBlockSize(dir);
    List<FileStatus> listed = new ArrayList<>();
    try {
      for (ListObjectsV2Response page : s3.listObjectsV2Paginator(request)) {
        for (S3Object o : page.contents()) {
          String name = o.key().substring(prefix.length());
          if (name.compareTo(fromName) >= 0) {
            listed.add(
                new S3AFileStatus(
                    o.size(),
                    o.lastModified().toEpochMilli(),
                    s3a.keyToQualifiedPath(o.key()),
                    blockSize,
                    s3a.getUsername(),
                    o.eTag(),
                    null));
          }
        }
      }
    } catch (SdkException e) {
      // As S3A's own listing reports it, so that the retry policy classifies it the same way.
      throw S3AUtils.translateException("listFrom", dir, e);
    }
    listed.sort(Comparator.comparing(f -> f.getPath().getName()));
    return listed;
  }
}
