package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.kcdelta.it.infra.S3Proxy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3ListFromTest {
  private static S3Proxy s3;

  @BeforeAll
  static void start() {
    s3 = S3Proxy.inMemory();
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  @Test
  void listsWhatAFilteredDirectoryListingShowsFromTheNameOn() throws IOException {
    Configuration conf = s3.hadoopConf();
    Path dir =
        new Path(s3.uri("t-" + UUID.randomUUID().toString().substring(0, 8) + "/_delta_log"));
    FileSystem fs = dir.getFileSystem(conf);
    List<String> names = new ArrayList<>();
    for (int v = 0; v < 25; v++) {
      names.add(DynamoDbLogStore.deltaFileName(v));
    }
    names.addAll(
        List.of(
            "00000000000000000010.checkpoint.parquet",
            "00000000000000000020.checkpoint.parquet",
            "_last_checkpoint"));
    for (String name : names) {
      try (OutputStream out = fs.create(new Path(dir, name))) {
        out.write(name.getBytes(StandardCharsets.UTF_8));
      }
    }
    // A nested directory is not a file of the log.
    fs.create(new Path(dir, "_commits/00000000000000000030.json")).close();

    for (String from :
        List.of(
            "00000000000000000000",
            "00000000000000000020.checkpoint",
            "00000000000000000024.json",
            "zzz")) {
      List<FileStatus> listed = S3ListFrom.listFrom(fs, dir, from);
      List<String> expected =
          Arrays.stream(fs.listStatus(dir))
              .filter(FileStatus::isFile)
              .map(f -> f.getPath().getName())
              .filter(n -> n.compareTo(from) >= 0)
              .sorted(Comparator.naturalOrder())
              .toList();
      assertEquals(expected, listed.stream().map(f -> f.getPath().getName()).toList(), from);
      for (FileStatus f : listed) {
        FileStatus stat = fs.getFileStatus(f.getPath());
        assertEquals(stat.getPath(), f.getPath());
        assertEquals(stat.getLen(), f.getLen());
        assertEquals(((EtagSource) stat).getEtag(), ((EtagSource) f).getEtag());
        assertFalse(f.isDirectory());
      }
    }
  }

  @Test
  void leavesOtherFileSystemsAndListV1ToTheDirectoryListing(@TempDir java.nio.file.Path tmp)
      throws IOException {
    Configuration conf = new Configuration();
    assertNull(S3ListFrom.listFrom(FileSystem.getLocal(conf), new Path(tmp.toUri()), "0"));
    Configuration v1 = s3.hadoopConf();
    v1.setInt("fs.s3a.list.version", 1);
    Path dir = new Path(s3.uri("v1-" + UUID.randomUUID().toString().substring(0, 8)));
    FileSystem fs = FileSystem.newInstance(dir.toUri(), v1);
    try (fs) {
      assertNull(S3ListFrom.listFrom(fs, dir, "0"));
    }
  }
}
