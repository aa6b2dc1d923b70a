package io.kcdelta.aws;

import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * What S3A signs with when the connector configures it ({@code fs.s3a.aws.credentials.provider}):
 * the connector's shared {@link AwsIdentity} for the file system's configuration, so S3 acts as the
 * same identity as DynamoDB. S3A 3.4 instantiates it with its (URI, Configuration) constructor; the
 * identity's provider is shared, so closing the file system does not close it.
 */
public final class S3aCredentialsProvider implements AwsCredentialsProvider {
  private final AwsIdentity identity;

  public S3aCredentialsProvider(URI bucket, Configuration conf) {
    this.identity = AwsIdentities.forS3(conf);
  }

  @Override
  public AwsCredentials resolveCredentials() {
    return identity.provider().resolveCredentials();
  }

  @Override
  public String toString() {
    return "S3aCredentialsProvider[" + identity.source() + "]";
  }
}
