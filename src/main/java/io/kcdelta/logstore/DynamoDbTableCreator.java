package io.kcdelta.logstore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

/**
 * Creates the log table when it is missing (PAY_PER_REQUEST, HASH tablePath, RANGE fileName), waits
 * until it is ACTIVE, and enables TTL on {@code expireTime}. Runs at most once per JVM and table,
 * because every DeltaLog gets a new LogStore and a DescribeTable per table handle is waste.
 */
final class DynamoDbTableCreator {

    private static final Logger LOG = LoggerFactory.getLogger(DynamoDbTableCreator.class);
    private static final long ACTIVE_TIMEOUT_MS = 120_000;
    private static final Set<String> READY = ConcurrentHashMap.newKeySet();

    private DynamoDbTableCreator() {
    }

    static void ensureExists(DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s) throws IOException {
        String readyKey = s.describeService() + "#" + s.tableName();
        if (READY.contains(readyKey)) {
            return;
        }
        synchronized (READY) {
            if (READY.contains(readyKey)) {
                return;
            }
            if (!isActive(client, retrier, s.tableName())) {
                create(client, retrier, s);
            }
            READY.add(readyKey);
        }
    }

    /** @return false if the table does not exist; waits while it is being created. */
    private static boolean isActive(DynamoDbClient client, DynamoDbRetrier retrier, String table) throws IOException {
        try {
            waitUntilActive(client, retrier, table);
            return true;
        } catch (TableMissing e) {
            return false;
        }
    }

    // Package-private so a test can play the losing side of a create race.
    static void create(DynamoDbClient client, DynamoDbRetrier retrier, DynamoDbSettings s) throws IOException {
        String table = s.tableName();
        CreateTableRequest req = CreateTableRequest.builder()
                .tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName(LogEntry.TABLE_PATH).attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName(LogEntry.FILE_NAME).attributeType(ScalarAttributeType.S).build())
                .keySchema(
                        KeySchemaElement.builder().attributeName(LogEntry.TABLE_PATH).keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName(LogEntry.FILE_NAME).keyType(KeyType.RANGE).build())
                .build();
        boolean created;
        try {
            retrier.call("CreateTable", () -> client.createTable(req));
            created = true;
            LOG.info("Created DynamoDB table '{}' at {} for the Delta log store", table, s.describeService());
        } catch (IOException e) {
            if (!(e.getCause() instanceof ResourceInUseException)) {
                throw e;
            }
            // Another worker created it between our DescribeTable and CreateTable.
            created = false;
        }
        try {
            waitUntilActive(client, retrier, table);
        } catch (TableMissing e) {
            throw new IOException("DynamoDB table '" + table + "' at " + s.describeService()
                    + " vanished while waiting for it to become ACTIVE", e);
        }
        if (created) {
            enableTtl(client, s);
        }
    }

    private static void waitUntilActive(DynamoDbClient client, DynamoDbRetrier retrier, String table) throws IOException {
        long deadline = System.currentTimeMillis() + ACTIVE_TIMEOUT_MS;
        long pause = 50;
        while (true) {
            TableStatus status;
            try {
                status = retrier.call("DescribeTable", () -> client.describeTable(b -> b.tableName(table))).table().tableStatus();
            } catch (IOException e) {
                if (e.getCause() instanceof ResourceNotFoundException) {
                    throw new TableMissing();
                }
                throw e;
            }
            if (status == TableStatus.ACTIVE) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IOException("DynamoDB table '" + table + "' is still " + status + " after " + ACTIVE_TIMEOUT_MS + " ms");
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for DynamoDB table '" + table + "'");
            }
            pause = Math.min(1_000, pause * 2);
        }
    }

    private static void enableTtl(DynamoDbClient client, DynamoDbSettings s) {
        try {
            client.updateTimeToLive(UpdateTimeToLiveRequest.builder()
                    .tableName(s.tableName())
                    .timeToLiveSpecification(t -> t.enabled(true).attributeName(LogEntry.EXPIRE_TIME))
                    .build());
        } catch (SdkException e) {
            // Some DynamoDB-compatible servers (dynalite) lack UpdateTimeToLive. Without TTL the table
            // only grows; commits stay correct.
            LOG.warn("Could not enable TTL on attribute '{}' of DynamoDB table '{}' at {}: {}. Completed log "
                    + "entries will not expire; enable TTL on '{}' by hand.", LogEntry.EXPIRE_TIME, s.tableName(),
                    s.describeService(), e.getMessage(), LogEntry.EXPIRE_TIME);
        }
    }

    /** Control flow only; never escapes this class. */
    private static final class TableMissing extends IOException {
        TableMissing() {
            super("table missing");
        }
    }
}
