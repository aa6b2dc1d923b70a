package io.kcdelta.it.infra;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * An AWS for tests on loopback: STS ({@link TestSts}) and, behind signature-checking fronts ({@link
 * SigV4Front}), S3 (an s3proxy without authentication of its own) and DynamoDB (dynalite), all
 * sharing one {@link TestIam} that records every call.
 */
public final class AwsTestServers implements AutoCloseable {
  public final TestIam iam = new TestIam();
  public final S3Proxy s3;
  public final Dynalite dynamo;
  public final TestSts sts;
  public final SigV4Front s3Front;
  public final SigV4Front dynamoFront;

  private AwsTestServers() throws IOException {
    S3Proxy s3Started = null;
    Dynalite dynamoStarted = null;
    TestSts stsStarted = null;
    SigV4Front s3FrontStarted = null;
    try {
      s3Started = S3Proxy.inMemoryWithoutAuthentication();
      dynamoStarted = Dynalite.inMemory();
      stsStarted = new TestSts(iam);
      s3FrontStarted = new SigV4Front(SigV4Front.Service.S3, s3Started.endpoint(), iam);
      this.dynamoFront = new SigV4Front(SigV4Front.Service.DYNAMODB, dynamoStarted.endpoint(), iam);
    } catch (IOException | RuntimeException e) {
      closeQuietly(s3FrontStarted, stsStarted, dynamoStarted, s3Started);
      throw e;
    }
    this.s3 = s3Started;
    this.dynamo = dynamoStarted;
    this.sts = stsStarted;
    this.s3Front = s3FrontStarted;
  }

  public static AwsTestServers start() throws IOException {
    return new AwsTestServers();
  }

  /**
   * Connector settings that reach S3 and DynamoDB through the fronts and STS directly; no
   * credentials (the caller adds its own).
   */
  public Map<String, String> connectorConfig(String dynamoDbTable) {
    Map<String, String> c = new HashMap<>();
    c.put("s3.endpoint", s3Front.endpoint().toString());
    c.put("s3.region", S3Proxy.REGION);
    c.put("s3.path.style.access", "true");
    c.put("dynamodb.endpoint", dynamoFront.endpoint().toString());
    c.put("dynamodb.table.name", dynamoDbTable);
    c.put("aws.sts.endpoint", sts.endpoint().toString());
    return c;
  }

  @Override
  public void close() {
    closeQuietly(dynamoFront, s3Front, sts, dynamo, s3);
  }

  private static void closeQuietly(AutoCloseable... all) {
    for (AutoCloseable c : all) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception ignored) {
          // Closing everything else matters more.
        }
      }
    }
  }
}
