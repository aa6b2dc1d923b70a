/**
 * The AWS identity of a connector config: one credentials provider for S3 (through S3A) and
 * DynamoDB (through the log store), built from static keys or the AWS SDK's default chain with an
 * assumed role on top, shared by the tasks of a worker; the identity it acts as, told once; and
 * what an authentication or authorization failure means, said in words an operator can act on.
 *
 * <p>A leaf beside {@code retry}: it imports nothing of ours but {@code retry}, so the log store,
 * which must stand alone in a Spark job, may use it. It reads everything from the Hadoop {@code
 * Configuration} ({@link io.kcdelta.aws.AwsIdentityKeys}), which is how S3A and the log store are
 * configured anyway.
 */
package io.kcdelta.aws;
