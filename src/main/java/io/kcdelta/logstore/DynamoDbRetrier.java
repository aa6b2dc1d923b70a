package io.kcdelta.logstore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Runs one DynamoDB call with a bounded budget of attempts and exponential backoff on transient
 * failures (throttling, 5xx, network errors, timeouts), and turns every other failure into an
 * {@link IOException} that names the action and the table, which is what an operator needs to fix
 * an IAM policy or a typo.
 *
 * <p>{@link ConditionalCheckFailedException} passes through unchanged and is never retried: it is
 * the answer "another writer has this version", not a failure.
 */
final class DynamoDbRetrier {

    private static final Logger LOG = LoggerFactory.getLogger(DynamoDbRetrier.class);

    private final DynamoDbSettings settings;

    DynamoDbRetrier(DynamoDbSettings settings) {
        this.settings = settings;
    }

    /** {@code call} sees how many attempts ran before it (0 on the first). */
    interface Attempt<T> {
        T run(int previousAttempts);
    }

    <T> T call(String action, Supplier<T> call) throws IOException {
        return call(action, previous -> call.get());
    }

    <T> T call(String action, Attempt<T> call) throws IOException {
        SdkException last = null;
        for (int attempt = 1; attempt <= settings.maxAttempts(); attempt++) {
            try {
                return call.run(attempt - 1);
            } catch (ConditionalCheckFailedException e) {
                throw e;
            } catch (SdkException e) {
                if (!isTransient(e)) {
                    throw permanent(action, e);
                }
                last = e;
                if (attempt < settings.maxAttempts()) {
                    long delay = backoffMillis(attempt);
                    LOG.debug("DynamoDB {} on table {} failed transiently (attempt {}/{}), retrying in {} ms: {}",
                            action, settings.tableName(), attempt, settings.maxAttempts(), delay, e.toString());
                    sleep(delay);
                }
            }
        }
        throw new IOException("DynamoDB at " + settings.describeService() + " was unreachable or throttled for "
                + settings.maxAttempts() + " attempts (" + action + " on table '" + settings.tableName()
                + "'); last error: " + last.getMessage(), last);
    }

    static boolean isTransient(SdkException e) {
        if (e instanceof ConditionalCheckFailedException) {
            return false;
        }
        if (e instanceof ApiCallAttemptTimeoutException || e instanceof ApiCallTimeoutException) {
            return true;
        }
        if (e instanceof AwsServiceException ase) {
            return ase.isThrottlingException() || ase.statusCode() >= 500;
        }
        if (e instanceof SdkClientException) {
            // Connection refused/reset, read timeouts. A client error without an I/O cause is a local
            // problem (no credentials, bad region) that waiting does not fix.
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                if (t instanceof IOException) {
                    return true;
                }
            }
        }
        return false;
    }

    private IOException permanent(String action, SdkException e) {
        String where = "DynamoDB action dynamodb:" + action + " on table '" + settings.tableName()
                + "' at " + settings.describeService();
        if (e instanceof AwsServiceException ase && ase.awsErrorDetails() != null) {
            String code = ase.awsErrorDetails().errorCode();
            if (ase.statusCode() == 403 || "AccessDeniedException".equals(code)
                    || "UnrecognizedClientException".equals(code)) {
                return new IOException("Access denied to " + where
                        + ": grant dynamodb:" + action + " on the table to these credentials ("
                        + ase.awsErrorDetails().errorMessage() + ")", e);
            }
        }
        if (e instanceof ResourceNotFoundException) {
            return new IOException(where + " failed: the table does not exist. Create it (HASH tablePath S, "
                    + "RANGE fileName S) or set " + DynamoDbLogStoreKeys.TABLE_AUTO_CREATE + "=true", e);
        }
        return new IOException(where + " failed: " + e.getMessage(), e);
    }

    private long backoffMillis(int attempt) {
        long base = settings.retryBaseDelay().toMillis();
        long cap = settings.retryMaxDelay().toMillis();
        long exp = attempt >= 31 ? cap : Math.min(cap, base << (attempt - 1));
        // Jitter spreads writers that were throttled together, so they do not retry in lock step.
        return exp <= 1 ? exp : exp / 2 + ThreadLocalRandom.current().nextLong(exp / 2 + 1);
    }

    private static void sleep(long millis) throws InterruptedIOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException iio = new InterruptedIOException("interrupted while backing off a DynamoDB retry");
            iio.initCause(e);
            throw iio;
        }
    }
}
