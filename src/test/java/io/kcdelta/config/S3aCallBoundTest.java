package io.kcdelta.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.DeltaSinkConnector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * An S3A call with the connector's S3A limits against an S3 endpoint that refuses connections ends
 * in seconds, not S3A's default minutes. Measured; the bound checked has a wide margin.
 */
class S3aCallBoundTest {

  @Test
  void aRefusedS3ConnectionFailsWithinSeconds() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    Configuration conf =
        HadoopConfigurationFactory.create(
            new DeltaSinkConfig(
                Map.of(
                    "name",
                    "bound",
                    "connector.class",
                    DeltaSinkConnector.class.getName(),
                    "topics",
                    "t",
                    "delta.table.path",
                    "s3a://bucket/t",
                    "delta.log.store",
                    "s3-conditional",
                    "s3.endpoint",
                    "http://127.0.0.1:" + closed,
                    "s3.region",
                    "us-east-1",
                    "s3.path.style.access",
                    "true",
                    "aws.access.key.id",
                    "test",
                    "aws.secret.access.key",
                    "test")));
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf)) {
      long t0 = System.nanoTime();
      IOException e =
          assertThrows(
              IOException.class, () -> fs.getFileStatus(new Path("s3a://bucket/t/_delta_log")));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("S3A getFileStatus against a closed port gave up after %d ms: %s%n", ms, e);
      // Three tries of three refused connects, 0.5 s and 1 s pauses between tries.
      assertTrue(ms < 15_000, ms + " ms");
    }
  }
}
