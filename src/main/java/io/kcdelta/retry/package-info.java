/**
 * One retry policy for the whole connector: which failures pass ({@link
 * io.kcdelta.retry.Transience}), how long to wait between attempts ({@link
 * io.kcdelta.retry.Backoff}), and how long and how often one operation may keep trying ({@link
 * io.kcdelta.retry.RetryPolicy}, {@link io.kcdelta.retry.RetryBudget}).
 *
 * <p>A leaf: it imports nothing of ours, so every package may use it. That includes {@code
 * logstore}, which otherwise stands alone (a Spark job may load the DynamoDB log store without the
 * rest of the connector); this package is the one exception to that rule, because the writer and
 * the log store must agree on what is worth retrying. For the same reason it depends on no library
 * that the log store does not bring anyway: failures of Kafka Connect, Delta Standalone and Hadoop
 * S3A are recognised by class name, never by a class reference that would fail to load without
 * them. Only the AWS SDK's exception types, which the log store needs itself, are referenced
 * directly.
 */
package io.kcdelta.retry;
