package io.kcdelta.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/**
 * The retry policy on the error shapes DynamoDB returns. dynalite never throttles, fails with 5xx or
 * denies access, so these shapes are built here; the real-network path (connection refused) is
 * covered against a closed port in {@link DynamoDbLogStoreProtocolTest}.
 */
class DynamoDbRetrierTest {

    private final DynamoDbRetrier retrier = new DynamoDbRetrier(settings(4));

    @Test
    void throttlingFiveHundredsAndTimeoutsAreTransient() {
        assertTrue(DynamoDbRetrier.isTransient(ProvisionedThroughputExceededException.builder().statusCode(400)
                .awsErrorDetails(error("ProvisionedThroughputExceededException")).build()));
        assertTrue(DynamoDbRetrier.isTransient(DynamoDbException.builder().statusCode(400)
                .awsErrorDetails(error("ThrottlingException")).build()));
        assertTrue(DynamoDbRetrier.isTransient(DynamoDbException.builder().statusCode(503)
                .awsErrorDetails(error("ServiceUnavailable")).build()));
        assertTrue(DynamoDbRetrier.isTransient(ApiCallAttemptTimeoutException.create(1000)));
        assertTrue(DynamoDbRetrier.isTransient(SdkClientException.create("io", new ConnectException("refused"))));
    }

    @Test
    void conditionFailuresValidationAndLocalErrorsAreNot() {
        assertFalse(DynamoDbRetrier.isTransient(ConditionalCheckFailedException.builder().statusCode(400)
                .awsErrorDetails(error("ConditionalCheckFailedException")).build()));
        assertFalse(DynamoDbRetrier.isTransient(DynamoDbException.builder().statusCode(400)
                .awsErrorDetails(error("ValidationException")).build()));
        assertFalse(DynamoDbRetrier.isTransient(SdkClientException.create("Unable to load credentials")));
    }

    @Test
    void retriesUntilSuccessWithinTheBudget() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        String result = retrier.call("GetItem", () -> {
            if (calls.incrementAndGet() < 3) {
                throw DynamoDbException.builder().statusCode(500).awsErrorDetails(error("InternalServerError")).build();
            }
            return "ok";
        });
        assertEquals("ok", result);
        assertEquals(3, calls.get());
    }

    @Test
    void exhaustedBudgetNamesEndpointRegionAndAttempts() {
        AtomicInteger calls = new AtomicInteger();
        IOException e = assertThrows(IOException.class, () -> retrier.call("PutItem", () -> {
            calls.incrementAndGet();
            throw ProvisionedThroughputExceededException.builder().statusCode(400)
                    .awsErrorDetails(error("ProvisionedThroughputExceededException")).build();
        }));
        assertEquals(4, calls.get());
        assertTrue(e.getMessage().startsWith("DynamoDB at http://127.0.0.1:1/us-east-1 was unreachable or throttled for 4 attempts"), e.getMessage());
    }

    @Test
    void conditionalCheckFailureIsNeverRetried() {
        AtomicInteger calls = new AtomicInteger();
        ConditionalCheckFailedException ccf = ConditionalCheckFailedException.builder().statusCode(400)
                .awsErrorDetails(error("ConditionalCheckFailedException")).build();
        assertSame(ccf, assertThrows(ConditionalCheckFailedException.class, () -> retrier.call("PutItem", () -> {
            calls.incrementAndGet();
            throw ccf;
        })));
        assertEquals(1, calls.get());
    }

    @Test
    void accessDeniedNamesTheActionAndTheTable() {
        IOException e = assertThrows(IOException.class, () -> retrier.call("CreateTable", () -> {
            throw DynamoDbException.builder().statusCode(400).awsErrorDetails(error("AccessDeniedException")).build();
        }));
        assertTrue(e.getMessage().contains("dynamodb:CreateTable"), e.getMessage());
        assertTrue(e.getMessage().contains("'delta_log'"), e.getMessage());
    }

    private static AwsErrorDetails error(String code) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage(code + " message").serviceName("DynamoDb").build();
    }

    private static DynamoDbSettings settings(int attempts) {
        Configuration conf = new Configuration(false);
        conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:1");
        conf.setInt(DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS, attempts);
        conf.setLong(DynamoDbLogStoreKeys.RETRY_BASE_DELAY_MS, 1);
        return DynamoDbSettings.from(conf);
    }
}
