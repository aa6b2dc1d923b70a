package io.kcdelta.logstore;

import static io.kcdelta.logstore.LogStoreTestSupport.addLine;
import static io.kcdelta.logstore.LogStoreTestSupport.deltaFile;
import static io.kcdelta.logstore.LogStoreTestSupport.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.it.infra.Dynalite;
import io.kcdelta.it.infra.S3Proxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The wire format and the write algorithm of DESIGN.md, against dynalite and s3proxy over s3a://.
 */
class DynamoDbLogStoreProtocolTest {

  private static final String DDB_TABLE = "delta_log_protocol";

  private static Dynalite ddb;
  private static S3Proxy s3;
  private static DynamoDbClient client;

  private Configuration conf;
  private String tablePath;
  private DynamoDbLogStore store;

  @BeforeAll
  static void startServers() {
    ddb = Dynalite.inMemory();
    s3 = S3Proxy.inMemory();
    client = LogStoreTestSupport.client(ddb);
  }

  @AfterAll
  static void stopServers() {
    client.close();
    s3.close();
    ddb.close();
  }

  @BeforeEach
  void newTable() {
    conf = LogStoreTestSupport.conf(s3, ddb, DDB_TABLE);
    tablePath = LogStoreTestSupport.uniqueTablePath(s3);
    store = new DynamoDbLogStore(conf);
  }

  @Test
  void autoCreatesTheTableOnDemandWithTheSharedKeySchema() throws IOException {
    write(0, addLine("a"));
    TableDescription t = client.describeTable(b -> b.tableName(DDB_TABLE)).table();
    assertEquals(BillingMode.PAY_PER_REQUEST, t.billingModeSummary().billingMode());
    assertEquals(
        LogEntry.TABLE_PATH,
        t.keySchema().stream()
            .filter(k -> k.keyType() == KeyType.HASH)
            .findFirst()
            .orElseThrow()
            .attributeName());
    assertEquals(
        LogEntry.FILE_NAME,
        t.keySchema().stream()
            .filter(k -> k.keyType() == KeyType.RANGE)
            .findFirst()
            .orElseThrow()
            .attributeName());
    t.attributeDefinitions().forEach(a -> assertEquals("S", a.attributeTypeAsString()));
  }

  @Test
  void losingACreateRaceIsNotAnError() throws IOException {
    write(0, addLine("a"));
    DynamoDbSettings settings = DynamoDbSettings.from(conf);
    // The table exists, so CreateTable answers ResourceInUseException, as it would to a second
    // creator.
    DynamoDbTableCreator.create(
        DynamoDbClients.forSettings(settings), new DynamoDbRetrier(settings), settings);
  }

  @Test
  void missingTableWithoutAutoCreateNamesTheFix() {
    conf.set(DynamoDbLogStoreKeys.TABLE_NAME, "delta_log_never_created");
    conf.setBoolean(DynamoDbLogStoreKeys.TABLE_AUTO_CREATE, false);
    DynamoDbLogStore noCreate = new DynamoDbLogStore(conf);
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                noCreate.write(
                    deltaFile(tablePath, 0), List.of(addLine("a")).iterator(), false, conf));
    assertTrue(
        e.getMessage().contains("'delta_log_never_created'")
            && e.getMessage().contains("does not exist")
            && e.getMessage().contains(DynamoDbLogStoreKeys.TABLE_AUTO_CREATE),
        e.getMessage());
  }

  @Test
  void completedCommitHasExactItemShapeAndFile() throws IOException {
    long before = System.currentTimeMillis() / 1000;
    write(0, addLine("a"), addLine("b"));
    long after = System.currentTimeMillis() / 1000;

    Map<String, AttributeValue> item = LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 0);
    assertEquals(
        Set.of("tablePath", "fileName", "tempPath", "complete", "expireTime"), item.keySet());
    assertEquals(tablePath, item.get("tablePath").s());
    assertEquals("00000000000000000000.json", item.get("fileName").s());
    assertEquals("true", item.get("complete").s());
    assertNull(item.get("complete").bool(), "complete is a string, not a BOOL");
    String temp = item.get("tempPath").s();
    assertTrue(temp.matches("\\.tmp/00000000000000000000\\.json\\.[0-9a-f-]{36}"), temp);
    long expire = Long.parseLong(item.get("expireTime").n());
    assertTrue(
        expire >= before + 86_400 && expire <= after + 86_400,
        "epoch seconds + default TTL: " + expire);

    assertEquals(addLine("a") + "\n" + addLine("b") + "\n", read(conf, deltaFile(tablePath, 0)));
    assertTrue(
        fs().exists(new Path(tablePath + "/_delta_log/" + temp)), "temp file stays for recoverers");
  }

  @Test
  void ttlIsConfigurableInSeconds() throws IOException {
    conf.set(DynamoDbLogStoreKeys.TTL_SECONDS, "60");
    store = new DynamoDbLogStore(conf);
    long before = System.currentTimeMillis() / 1000;
    write(0, addLine("a"));
    long expire =
        Long.parseLong(
            LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 0).get("expireTime").n());
    assertTrue(expire >= before + 60 && expire <= before + 62, Long.toString(expire));
  }

  @Test
  void incompleteEntryHasNoExpireTime() throws IOException {
    DynamoDbLogStore crashing =
        new DynamoDbLogStore(
            conf,
            (step, file) -> {
              if (step == CommitHook.Step.ENTRY_PUT) {
                throw new SimulatedCrash(step);
              }
            });
    assertThrows(
        SimulatedCrash.class,
        () ->
            crashing.write(deltaFile(tablePath, 0), List.of(addLine("a")).iterator(), false, conf));
    Map<String, AttributeValue> item = LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 0);
    assertEquals(Set.of("tablePath", "fileName", "tempPath", "complete"), item.keySet());
    assertEquals("false", item.get("complete").s());
    assertFalse(fs().exists(deltaFile(tablePath, 0)));
  }

  @Test
  void takenVersionIsFileAlreadyExists() throws IOException {
    write(0, addLine("a"));
    FileAlreadyExistsException e =
        assertThrows(FileAlreadyExistsException.class, () -> write(0, addLine("b")));
    assertTrue(e.getFile().endsWith("00000000000000000000.json"), e.getFile());
    assertEquals(
        addLine("a") + "\n", read(conf, deltaFile(tablePath, 0)), "the winner's file is untouched");
  }

  /**
   * Two workers create a table at once, and the other's whole commit of version 0 lands right after
   * this writer looked for 00000000000000000000.json: a lost version (retried as any), not a table
   * deleted and recreated. The compat run of the quickstart saw its task fail with the latter.
   */
  @Test
  void versionZeroWonRightAfterThisWriterLookedIsALostVersion() throws IOException {
    Configuration racing = new Configuration(conf);
    racing.set("fs.s3a.impl", InterleavingS3AFileSystem.class.getName());
    racing.setBoolean("fs.s3a.impl.disable.cache", true);
    Path zero = deltaFile(tablePath, 0);
    InterleavingS3AFileSystem.afterNextLookFor(zero, () -> write(0, addLine("theirs")));
    DynamoDbLogStore late = new DynamoDbLogStore(racing);
    FileAlreadyExistsException e =
        assertThrows(
            FileAlreadyExistsException.class,
            () -> late.write(zero, List.of(addLine("mine")).iterator(), false, racing));
    assertTrue(e.getFile().endsWith("00000000000000000000.json"), e.getFile());
    assertEquals(addLine("theirs") + "\n", read(conf, zero), "the winner's file is untouched");
  }

  @Test
  void versionClaimedInDynamoDbButNotYetCopiedIsFileAlreadyExists() throws IOException {
    write(0, addLine("a"));
    // Another writer (maybe in another JVM) holds version 1 and has not copied its file yet.
    FileSystem fs = fs();
    Path temp = new Path(tablePath + "/_delta_log/.tmp/00000000000000000001.json.other");
    try (var out = fs.create(temp)) {
      out.write((addLine("theirs") + "\n").getBytes());
    }
    client.putItem(
        b ->
            b.tableName(DDB_TABLE)
                .item(
                    LogEntry.incomplete(
                            tablePath,
                            "00000000000000000001.json",
                            ".tmp/00000000000000000001.json.other")
                        .toItem()));

    assertThrows(FileAlreadyExistsException.class, () -> write(1, addLine("mine")));
    assertFalse(fs.exists(deltaFile(tablePath, 1)), "the loser must not publish");
  }

  @Test
  void missingPreviousVersionIsAnError() {
    FileSystemException e = assertThrows(FileSystemException.class, () -> write(5, addLine("a")));
    assertSame(FileSystemException.class, e.getClass(), "a hole is not a lost race");
    assertTrue(e.getMessage().contains("version 4"), e.getMessage());
    assertTrue(
        LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 5).isEmpty(), "nothing claimed");
  }

  @Test
  void previousVersionWrittenWithoutDynamoDbIsAccepted() throws IOException {
    // A table whose early commits predate the DynamoDB store: (N-1).json exists, its item does not.
    try (var out = fs().create(deltaFile(tablePath, 0))) {
      out.write((addLine("a") + "\n").getBytes());
    }
    write(1, addLine("b"));
    assertEquals(
        "true", LogStoreTestSupport.item(client, DDB_TABLE, tablePath, 1).get("complete").s());
  }

  @Test
  void versionZeroWithStaleCompleteEntryIsAnError() {
    // The table was deleted and recreated while DynamoDB still remembers the old version 0.
    client.putItem(
        b ->
            b.tableName(DDB_TABLE)
                .item(
                    LogEntry.incomplete(
                            tablePath,
                            "00000000000000000000.json",
                            ".tmp/00000000000000000000.json.old")
                        .asComplete(System.currentTimeMillis() / 1000 + 100)
                        .toItem()));
    FileSystemException e = assertThrows(FileSystemException.class, () -> write(0, addLine("a")));
    assertSame(FileSystemException.class, e.getClass());
    assertTrue(e.getMessage().contains("Delete the items"), e.getMessage());
  }

  @Test
  void overwriteBypassesDynamoDb() throws IOException {
    Path checkpoint = new Path(tablePath + "/_delta_log/_last_checkpoint");
    store.write(checkpoint, List.of("{\"version\":10}").iterator(), true, conf);
    store.write(checkpoint, List.of("{\"version\":20}").iterator(), true, conf);
    assertEquals("{\"version\":20}\n", read(conf, checkpoint));
    assertEquals(
        0,
        client
            .query(
                b ->
                    b.tableName(DDB_TABLE)
                        .keyConditionExpression("tablePath = :p")
                        .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(tablePath))))
            .count());
  }

  @Test
  void listFromListsCommitFilesInOrder() throws IOException {
    write(0, addLine("a"));
    write(1, addLine("b"));
    write(2, addLine("c"));
    List<String> names = names(store.listFrom(deltaFile(tablePath, 1), conf));
    assertEquals(List.of("00000000000000000001.json", "00000000000000000002.json"), names);
  }

  @Test
  void listFromOfAMissingLogDirectoryThrowsFileNotFound() {
    assertThrows(
        java.io.FileNotFoundException.class, () -> store.listFrom(deltaFile(tablePath, 0), conf));
  }

  @Test
  void readOfListedCommitsReturnsTheirContentAndANewListingSeesARecreatedTable()
      throws IOException {
    write(0, addLine("a"));
    write(1, addLine("b"), addLine("c"));
    names(store.listFrom(deltaFile(tablePath, 0), conf));
    for (int pass = 0; pass < 2; pass++) { // the second pass is served from the cache
      assertEquals(List.of(addLine("a")), lines(store.read(deltaFile(tablePath, 0), conf)));
      assertEquals(
          List.of(addLine("b"), addLine("c")), lines(store.read(deltaFile(tablePath, 1), conf)));
    }
    // The table is deleted and recreated under the same path: same names, new content.
    fs().delete(new Path(tablePath), true);
    client.deleteItem(
        b ->
            b.tableName(DDB_TABLE).key(LogEntry.key(tablePath, DynamoDbLogStore.deltaFileName(0))));
    client.deleteItem(
        b ->
            b.tableName(DDB_TABLE).key(LogEntry.key(tablePath, DynamoDbLogStore.deltaFileName(1))));
    write(0, addLine("x"));
    DynamoDbLogStore other = new DynamoDbLogStore(conf);
    names(other.listFrom(deltaFile(tablePath, 0), conf));
    assertEquals(List.of(addLine("x")), lines(other.read(deltaFile(tablePath, 0), conf)));
    names(store.listFrom(deltaFile(tablePath, 0), conf));
    assertEquals(
        List.of(addLine("x")),
        lines(store.read(deltaFile(tablePath, 0), conf)),
        "a new listing, a new ETag");
    // A file no listing showed is read from S3 as before.
    assertThrows(
        java.io.FileNotFoundException.class, () -> store.read(deltaFile(tablePath, 1), conf));
  }

  @Test
  void aCommitBelowWhereTheLatestListingStartedStaysReadableFromAnEarlierListing()
      throws IOException {
    write(0, addLine("a"));
    write(1, addLine("b"));
    write(2, addLine("c"));
    names(store.listFrom(deltaFile(tablePath, 0), conf));
    lines(store.read(deltaFile(tablePath, 1), conf));
    // A reader that knew version 0 lists again from a checkpoint at 2, then reads commit 1.
    names(store.listFrom(deltaFile(tablePath, 2), conf));
    fs().delete(deltaFile(tablePath, 1), false);
    assertEquals(
        List.of(addLine("b")),
        lines(store.read(deltaFile(tablePath, 1), conf)),
        "served with the status of the earlier listing (from the cache), not asked of S3 again");
  }

  private static List<String> lines(io.delta.storage.CloseableIterator<String> it)
      throws IOException {
    List<String> out = new java.util.ArrayList<>();
    try (it) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  @Test
  void unreachableDynamoDbFailsAfterTheRetryBudgetWithAClearMessage() throws IOException {
    int deadPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      deadPort = socket.getLocalPort();
    }
    conf.set(DynamoDbLogStoreKeys.ENDPOINT, "http://127.0.0.1:" + deadPort);
    conf.setInt(DynamoDbLogStoreKeys.RETRY_MAX_ATTEMPTS, 3);
    conf.setLong(DynamoDbLogStoreKeys.RETRY_BASE_DELAY_MS, 1);
    DynamoDbLogStore dead = new DynamoDbLogStore(conf);
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                dead.write(deltaFile(tablePath, 0), List.of(addLine("a")).iterator(), false, conf));
    assertTrue(
        e.getMessage()
            .contains(
                "DynamoDB at http://127.0.0.1:"
                    + deadPort
                    + "/us-east-1 was unreachable or throttled for 3 attempts"),
        e.getMessage());
  }

  @Test
  void tablePathKeyHasNoUserInfo() {
    assertEquals(
        "s3a://bucket/warehouse/t/_delta_log/x.json",
        DynamoDbLogStore.stripUserInfo(
                new Path("s3a://key:secret@bucket/warehouse/t/_delta_log/x.json"))
            .toString());
    assertEquals(
        "s3a://bucket/t", DynamoDbLogStore.stripUserInfo(new Path("s3a://bucket/t")).toString());
  }

  private void write(long version, String... lines) throws IOException {
    store.write(deltaFile(tablePath, version), List.of(lines).iterator(), false, conf);
  }

  private FileSystem fs() throws IOException {
    return new Path(tablePath).getFileSystem(conf);
  }

  private static List<String> names(java.util.Iterator<FileStatus> it) {
    List<String> out = new java.util.ArrayList<>();
    it.forEachRemaining(s -> out.add(s.getPath().getName()));
    return out;
  }
}
