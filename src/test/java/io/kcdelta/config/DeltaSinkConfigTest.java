package io.kcdelta.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.DeltaSinkConnector;
import io.kcdelta.schema.SchemaEvolution;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

class DeltaSinkConfigTest {

  private static Map<String, String> props(String... kv) {
    Map<String, String> p = new HashMap<>();
    p.put("name", "orders-sink");
    p.put("connector.class", DeltaSinkConnector.class.getName());
    p.put("topics", "orders");
    p.put("delta.table.path", "s3a://bucket/warehouse/orders");
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return p;
  }

  private static List<String> errorsOf(Map<String, String> props, String key) {
    Config result = new DeltaSinkConnector().validate(props);
    return result.configValues().stream()
        .filter(v -> v.name().equals(key))
        .findFirst()
        .map(ConfigValue::errorMessages)
        .orElseThrow();
  }

  @Test
  void defaultsFollowTheDesign() {
    DeltaSinkConfig c = new DeltaSinkConfig(props());
    assertEquals(60_000L, c.flushIntervalMs());
    assertEquals(134_217_728L, c.fileMaxBytes());
    assertEquals(CompressionCodecName.SNAPPY, c.compressionCodec());
    assertEquals("dynamodb", c.logStore());
    assertEquals("delta_log", c.dynamoDbTable());
    assertEquals("orders-sink", c.txnAppIdPrefix());
    assertEquals(SchemaEvolution.Mode.ADD_COLUMNS, c.schemaEvolution());
    assertEquals(DeltaSinkConfig.NullValueBehavior.IGNORE, c.nullValueBehavior());
    assertTrue(c.autoCreate());
    assertEquals(List.of(), c.partitionColumns());
    assertEquals(false, c.compactionEnabled());
    assertEquals(134_217_728L, c.compactionTargetFileBytes());
    assertEquals(8, c.compactionMinInputFiles());
    assertEquals(7 * 86_400_000L, c.orphanRetentionMs());
  }

  @Test
  void orphanRetentionIsAtLeastADayOrOff() {
    List<String> errors = errorsOf(props("orphan.retention.ms", "3600000"), "orphan.retention.ms");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("at least one day"), errors.get(0));
    assertEquals(
        List.of(), errorsOf(props("orphan.retention.ms", "86400000"), "orphan.retention.ms"));
    assertEquals(List.of(), errorsOf(props("orphan.retention.ms", "-1"), "orphan.retention.ms"));
    assertEquals(
        1, errorsOf(props("compaction.min.input.files", "1"), "compaction.min.input.files").size());
  }

  @Test
  void aTopicWithATableOfItsOwnGoesThereTheOthersToTheDefault() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(
            props(
                "delta.table.path",
                "s3a://bucket/warehouse/${topic}",
                "delta.table.path.orders.v1",
                "s3a://bucket/warehouse/orders",
                "delta.table.path.legacy-events",
                "s3a://other/${topic}_archive"));
    assertEquals("s3a://bucket/warehouse/orders", c.tablePath("orders.v1"));
    assertEquals("s3a://other/legacy-events_archive", c.tablePath("legacy-events"));
    assertEquals("s3a://bucket/warehouse/payments", c.tablePath("payments"));
  }

  @Test
  void upsertModeTakesKeyColumnsAndRefusesRoutingByField() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(
            props("delta.write.mode", "Upsert", "delta.upsert.key.columns", " id , region "));
    assertEquals(DeltaSinkConfig.WriteMode.UPSERT, c.writeMode());
    assertEquals(List.of("id", "region"), c.upsertKeyColumns());
    assertEquals(DeltaSinkConfig.WriteMode.APPEND, new DeltaSinkConfig(props()).writeMode());
    assertEquals(List.of(), new DeltaSinkConfig(props()).upsertKeyColumns());

    List<String> errors =
        errorsOf(
            props(
                "delta.write.mode",
                "upsert",
                "delta.table.path.audit",
                "s3a://bucket/audit/${field:tenant}"),
            "delta.write.mode");
    assertTrue(errors.get(0).contains("routed by ${field:...}"), errors.get(0));
    errors = errorsOf(props("delta.write.mode", "merge"), "delta.write.mode");
    assertEquals(1, errors.size());
    errors =
        errorsOf(
            props(
                "delta.write.mode",
                "upsert",
                "delta.upsert.key.columns",
                "id",
                "delta.table.partition.columns",
                "day(at), id"),
            "delta.upsert.key.columns");
    assertTrue(errors.get(0).contains("also a partition column"), errors.get(0));
  }

  @Test
  void aFieldInThePathRoutesEachRecordItMayFollowOnlyTheBucket() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(
            props(
                "delta.table.path",
                "s3a://bucket/warehouse/${topic}_${field:tenant}",
                "delta.table.path.audit",
                "s3a://bucket/audit"));
    assertTrue(c.routesByField());
    assertTrue(c.tablePathTemplate("orders").byField());
    assertEquals("s3a://bucket/audit", c.tablePath("audit"));
    assertEquals("s3a", DeltaSinkConfig.schemeOf(c.tablePathTemplate()));
    assertEquals(false, new DeltaSinkConfig(props()).routesByField());

    List<String> errors =
        errorsOf(props("delta.table.path", "s3a://${field:tenant}/orders"), "delta.table.path");
    assertTrue(errors.get(0).contains("may only follow the bucket"), errors.get(0));
    errors = errorsOf(props("delta.table.path", "s3a://b/t/${field:a.b}"), "delta.table.path");
    assertTrue(errors.get(0).contains("does not name a field"), errors.get(0));
    errors =
        errorsOf(
            props("delta.table.path.orders", "s3a://b/${field:}/x"), "delta.table.path.orders");
    assertTrue(errors.get(0).contains("does not name a field"), errors.get(0));
  }

  @Test
  void aTopicsTableMustBeAUsablePathOfTheDefaultsScheme() {
    List<String> errors =
        errorsOf(props("delta.table.path.orders", "file:///tmp/orders"), "delta.table.path.orders");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("share a scheme"), errors.get(0));
    errors = errorsOf(props("delta.table.path.orders", "/tmp/orders"), "delta.table.path.orders");
    assertTrue(errors.get(0).contains("no scheme"), errors.get(0));
    assertTrue(
        new DeltaSinkConnector()
                .validate(props("delta.table.path.orders", "s3a://bucket/elsewhere"))
                .configValues()
                .stream()
                .allMatch(v -> v.errorMessages().isEmpty()));
  }

  @Test
  void aMisspeltTablePropertyIsReportedUnderItsOwnKey() {
    List<String> errors =
        errorsOf(
            props("delta.table.properties.delta.enableDeletionVector", "true"),
            "delta.table.properties.delta.enableDeletionVector");
    assertEquals(1, errors.size(), errors.toString());
  }

  @Test
  void localTablesDefaultToTheFilesystemLogStore() {
    assertEquals(
        "filesystem", new DeltaSinkConfig(props("delta.table.path", "file:///tmp/t")).logStore());
  }

  @Test
  void pathWithoutSchemeIsRejectedWithAHint() {
    List<String> errors = errorsOf(props("delta.table.path", "/tmp/orders"), "delta.table.path");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("no scheme"), errors.get(0));
    assertTrue(errors.get(0).contains("file:///"), errors.get(0));
  }

  @Test
  void s3SchemeIsRejectedInFavourOfS3a() {
    List<String> errors = errorsOf(props("delta.table.path", "s3://bucket/t"), "delta.table.path");
    assertTrue(errors.get(0).contains("s3a://"), errors.get(0));
  }

  @Test
  void unknownCodecListsTheValidOnes() {
    List<String> errors =
        errorsOf(props("parquet.compression.codec", "brotli"), "parquet.compression.codec");
    assertTrue(errors.get(0).contains("snappy, zstd, gzip, lz4_raw, uncompressed"), errors.get(0));
  }

  @Test
  void codecsMapToParquet() {
    assertEquals(
        CompressionCodecName.ZSTD,
        new DeltaSinkConfig(props("parquet.compression.codec", "ZSTD")).compressionCodec());
    assertEquals(
        CompressionCodecName.LZ4_RAW,
        new DeltaSinkConfig(props("parquet.compression.codec", "lz4_raw")).compressionCodec());
    assertEquals(
        CompressionCodecName.UNCOMPRESSED,
        new DeltaSinkConfig(props("parquet.compression.codec", "uncompressed")).compressionCodec());
  }

  @Test
  void duplicateOrNestedPartitionColumnsAreRejected() {
    assertTrue(
        errorsOf(
                props("delta.table.partition.columns", "region,Region"),
                "delta.table.partition.columns")
            .get(0)
            .contains("twice"));
    assertTrue(
        errorsOf(
                props("delta.table.partition.columns", "customer.tier"),
                "delta.table.partition.columns")
            .get(0)
            .contains("top-level"));
  }

  @Test
  void theFilesystemLogStoreIsRefusedOnS3aAndNamesTheStoresThatWork() {
    Map<String, String> p = props("delta.log.store", "filesystem");
    List<String> errors = errorsOf(p, "delta.log.store");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("dynamodb"), errors.get(0));
    assertTrue(errors.get(0).contains("s3-conditional"), errors.get(0));
    assertTrue(errors.get(0).contains("lose commits"), errors.get(0));
    assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
  }

  @Test
  void theConditionalLogStoreIsForS3aTablesOnly() {
    assertEquals(
        List.of(), errorsOf(props("delta.log.store", "s3-conditional"), "delta.log.store"));
    assertEquals(
        "s3-conditional",
        new DeltaSinkConfig(props("delta.log.store", "S3-Conditional")).logStore());
    List<String> errors =
        errorsOf(
            props("delta.table.path", "file:///tmp/t", "delta.log.store", "s3-conditional"),
            "delta.log.store");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("s3a://"), errors.get(0));
  }

  @Test
  void dynamoDbLogStoreNeedsAnS3aTable() {
    Map<String, String> p =
        props("delta.table.path", "file:///tmp/t", "delta.log.store", "dynamodb");
    assertTrue(errorsOf(p, "delta.log.store").get(0).contains("filesystem"));
    ConfigException e = assertThrows(ConfigException.class, () -> new DeltaSinkConfig(p));
    assertTrue(e.getMessage().contains("s3a://"), e.getMessage());
  }

  @Test
  void nullBehaviorAndEvolutionModesAreValidated() {
    assertTrue(
        errorsOf(props("behavior.on.null.values", "delete"), "behavior.on.null.values")
            .get(0)
            .contains("ignore, fail"));
    assertTrue(
        errorsOf(props("delta.schema.evolution", "merge"), "delta.schema.evolution")
            .get(0)
            .contains("none, add-columns"));
  }

  @Test
  void metadataColumnsAreOffByDefaultAndParsedInTheOrderListed() {
    DeltaSinkConfig off = new DeltaSinkConfig(props());
    assertEquals(List.of(), off.metadataFields());
    assertEquals("_kafka", off.metadataColumn());
    assertNull(off.keyColumn());
    assertNull(off.timestampDateColumn());
    DeltaSinkConfig on =
        new DeltaSinkConfig(
            props(
                "delta.record.metadata.columns", " Offset, topic ,timestamp.type",
                "delta.record.key.column", "key",
                "delta.record.timestamp.date.column", "kafka_date"));
    assertEquals(List.of("offset", "topic", "timestamp.type"), on.metadataFields());
    assertEquals("key", on.keyColumn());
    assertEquals("kafka_date", on.timestampDateColumn());
  }

  @Test
  void unknownOrRepeatedMetadataFieldsAreRejectedListingTheValidOnes() {
    String unknown =
        errorsOf(
                props("delta.record.metadata.columns", "offset,key"),
                "delta.record.metadata.columns")
            .get(0);
    assertTrue(unknown.contains("'key'"), unknown);
    assertTrue(
        unknown.contains("topic, partition, offset, timestamp, timestamp.type, headers"), unknown);
    assertTrue(
        errorsOf(
                props("delta.record.metadata.columns", "offset,OFFSET"),
                "delta.record.metadata.columns")
            .get(0)
            .contains("twice"));
  }

  @Test
  void addedColumnNamesMustBeValidAndDistinct() {
    assertTrue(
        errorsOf(props("delta.record.key.column", "the key"), "delta.record.key.column")
            .get(0)
            .contains("letters, digits"));
    assertTrue(
        errorsOf(props("delta.record.metadata.column", " "), "delta.record.metadata.column")
            .get(0)
            .contains("Give a column name"));
    Map<String, String> same =
        props(
            "delta.record.metadata.columns", "offset",
            "delta.record.key.column", "_KAFKA");
    String clash = errorsOf(same, "delta.record.key.column").get(0);
    assertTrue(clash.contains("delta.record.metadata.column"), clash);
    assertThrows(ConfigException.class, () -> new DeltaSinkConfig(same));
    // Without metadata fields the metadata column is not added, so its name is free.
    new DeltaSinkConfig(props("delta.record.key.column", "_kafka"));
  }

  @Test
  void theMetadataStructCannotPartitionTheTableButTheDateColumnCan() {
    String e =
        errorsOf(
                props(
                    "delta.record.metadata.columns", "partition",
                    "delta.table.partition.columns", "_kafka"),
                "delta.table.partition.columns")
            .get(0);
    assertTrue(e.contains("delta.record.timestamp.date.column"), e);
    new DeltaSinkConfig(
        props(
            "delta.record.timestamp.date.column", "kafka_date",
            "delta.table.partition.columns", "kafka_date"));
  }

  @Test
  void tablePathExpandsTheTopic() {
    DeltaSinkConfig c = new DeltaSinkConfig(props("delta.table.path", "s3a://b/w/${topic}"));
    assertEquals("s3a://b/w/payments", c.tablePath("payments"));
  }

  @Test
  void hadoopSettingsCarryS3aAndPassThroughKeys() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(
            props(
                "s3.endpoint",
                "http://127.0.0.1:9000",
                "s3.region",
                "eu-west-1",
                "s3.path.style.access",
                "true",
                "aws.access.key.id",
                "AK",
                "aws.secret.access.key",
                "SK",
                "hadoop.fs.s3a.connection.maximum",
                "77"));
    Configuration conf = HadoopConfigurationFactory.create(c);
    assertEquals("http://127.0.0.1:9000", conf.get("fs.s3a.endpoint"));
    assertEquals("eu-west-1", conf.get("fs.s3a.endpoint.region"));
    assertEquals("true", conf.get("fs.s3a.path.style.access"));
    assertEquals("AK", conf.get("fs.s3a.access.key"));
    assertEquals("SK", conf.get("fs.s3a.secret.key"));
    assertEquals("77", conf.get("fs.s3a.connection.maximum"));
    assertEquals("io.kcdelta.logstore.DynamoDbLogStore", conf.get("delta.logStore.s3a.impl"));
    // S3A's retries and timeouts are cut so one call ends well within max.poll.interval.ms and the
    // connector's retry budget governs.
    assertEquals(2, conf.getInt("fs.s3a.retry.limit", -1));
    assertEquals(2, conf.getInt("fs.s3a.attempts.maximum", -1));
    assertEquals(
        15_000,
        conf.getTimeDuration("fs.s3a.connection.establish.timeout", -1, TimeUnit.MILLISECONDS));
    assertEquals(
        30_000,
        conf.getTimeDuration("fs.s3a.connection.request.timeout", -1, TimeUnit.MILLISECONDS));
    assertEquals(4, conf.getInt("fs.s3a.retry.throttle.limit", -1));
  }

  @Test
  void hadoopSettingsOverrideTheShortS3aRetries() {
    Configuration conf =
        HadoopConfigurationFactory.create(
            new DeltaSinkConfig(
                props("hadoop.fs.s3a.retry.limit", "7", "hadoop.fs.s3a.attempts.maximum", "5")));
    assertEquals(7, conf.getInt("fs.s3a.retry.limit", -1));
    assertEquals(5, conf.getInt("fs.s3a.attempts.maximum", -1));
  }

  @Test
  void secretIsNotPrintedWithTheConfig() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(props("aws.access.key.id", "AK", "aws.secret.access.key", "TOPSECRET"));
    assertTrue(!c.toString().contains("TOPSECRET"));
    assertNull(new DeltaSinkConfig(props()).awsSecretAccessKey());
  }

  @Test
  void awsIdentitySettingsAreValidated() {
    assertThrows(
        ConfigException.class,
        () -> new DeltaSinkConfig(props("aws.assume.role.arn", "arn:aws:iam::123:role/short")));
    assertThrows(
        ConfigException.class,
        () ->
            new DeltaSinkConfig(
                props("aws.assume.role.arn", "arn:aws:sts::123456789012:assumed-role/r/s")));
    assertThrows(
        ConfigException.class,
        () ->
            new DeltaSinkConfig(
                props(
                    "aws.assume.role.arn",
                    "arn:aws:iam::123456789012:role/r",
                    "aws.assume.role.duration.seconds",
                    "899")));
    assertThrows(
        ConfigException.class,
        () ->
            new DeltaSinkConfig(
                props(
                    "aws.assume.role.arn",
                    "arn:aws:iam::123456789012:role/r",
                    "aws.assume.role.external.id",
                    "has space")));
    assertThrows(
        ConfigException.class,
        () ->
            new DeltaSinkConfig(
                props(
                    "aws.assume.role.arn",
                    "arn:aws:iam::123456789012:role/r",
                    "aws.assume.role.session.name",
                    "x")));
    assertThrows(
        ConfigException.class, () -> new DeltaSinkConfig(props("aws.sts.endpoint", "not a url")));
    DeltaSinkConfig ok =
        new DeltaSinkConfig(
            props(
                "aws.assume.role.arn",
                "arn:aws-cn:iam::123456789012:role/team/connector",
                "aws.assume.role.external.id",
                "ext-1:2/3",
                "dynamodb.assume.role.arn",
                "arn:aws:iam::210987654321:role/delta-log",
                "aws.sts.endpoint",
                "https://sts.eu-west-1.amazonaws.com"));
    assertEquals("arn:aws-cn:iam::123456789012:role/team/connector", ok.assumeRoleArn());
    assertEquals("ext-1:2/3", ok.assumeRoleExternalId());
    assertEquals(3600, ok.assumeRoleDurationSeconds());
    assertEquals("arn:aws:iam::210987654321:role/delta-log", ok.dynamoDbAssumeRoleArn());
    assertNull(ok.dynamoDbAssumeRoleExternalId());
  }

  @Test
  void halfAKeyPairOrATokenWithoutKeysIsRefused() {
    assertTrue(
        errorsOf(props("aws.access.key.id", "AK"), "aws.secret.access.key")
            .get(0)
            .contains("go together"));
    assertTrue(
        errorsOf(props("aws.secret.access.key", "SK"), "aws.access.key.id")
            .get(0)
            .contains("go together"));
    assertTrue(
        errorsOf(props("aws.session.token", "TOKEN"), "aws.session.token")
            .get(0)
            .contains("temporary keys"));
    assertTrue(
        errorsOf(props("aws.assume.role.external.id", "ext-1"), "aws.assume.role.external.id")
            .get(0)
            .contains("aws.assume.role.arn"));
    assertTrue(
        errorsOf(
                props("dynamodb.assume.role.external.id", "ext-1"),
                "dynamodb.assume.role.external.id")
            .get(0)
            .contains("dynamodb.assume.role.arn"));
    assertThrows(
        ConfigException.class, () -> new DeltaSinkConfig(props("aws.access.key.id", "AK")));
    // Blank values, as Connect UIs send for untouched fields, are unset.
    new DeltaSinkConfig(
        props("aws.access.key.id", "", "aws.secret.access.key", "", "aws.session.token", ""));
    assertNull(
        new DeltaSinkConfig(
                props(
                    "aws.access.key.id",
                    "AK",
                    "aws.secret.access.key",
                    "SK",
                    "aws.session.token",
                    " "))
            .awsSessionToken());
  }

  @Test
  void roleSessionNameIsDerivedFromTheConnectorName() {
    assertEquals("kcdelta-orders-sink", new DeltaSinkConfig(props()).assumeRoleSessionName());
    Map<String, String> odd = props();
    odd.put("name", "orders to delta (eu)#" + "x".repeat(80));
    String derived = new DeltaSinkConfig(odd).assumeRoleSessionName();
    assertEquals(64, derived.length());
    assertTrue(derived.matches("[\\w+=,.@-]{2,64}"), derived);
    assertTrue(derived.startsWith("kcdelta-orders-to-delta--eu--"), derived);
    assertEquals(
        "mine",
        new DeltaSinkConfig(
                props(
                    "aws.assume.role.arn",
                    "arn:aws:iam::123456789012:role/r",
                    "aws.assume.role.session.name",
                    "mine"))
            .assumeRoleSessionName());
  }

  @Test
  void stsRegionFallsBackToTheS3RegionThenUsEast1() {
    assertEquals("us-east-1", new DeltaSinkConfig(props()).stsRegion());
    assertEquals("eu-west-1", new DeltaSinkConfig(props("s3.region", "eu-west-1")).stsRegion());
    assertEquals(
        "eu-central-1",
        new DeltaSinkConfig(props("s3.region", "eu-west-1", "aws.sts.region", "eu-central-1"))
            .stsRegion());
  }

  @Test
  void sessionTokenIsNotPrintedWithTheConfig() {
    DeltaSinkConfig c =
        new DeltaSinkConfig(
            props(
                "aws.access.key.id",
                "ASIAEXAMPLE",
                "aws.secret.access.key",
                "TOPSECRET",
                "aws.session.token",
                "SECRETTOKEN"));
    assertTrue(!c.toString().contains("SECRETTOKEN"));
    assertEquals("SECRETTOKEN", c.awsSessionToken().value());
  }

  @Test
  void s3aSignsThroughTheConnectorsIdentityUnlessAHadoopOverrideSaysOtherwise() {
    Configuration conf =
        HadoopConfigurationFactory.create(
            new DeltaSinkConfig(
                props(
                    "aws.access.key.id",
                    "AK",
                    "aws.secret.access.key",
                    "SK",
                    "aws.session.token",
                    "TOKEN",
                    "aws.assume.role.arn",
                    "arn:aws:iam::123456789012:role/connector",
                    "aws.assume.role.external.id",
                    "ext-1",
                    "dynamodb.assume.role.arn",
                    "arn:aws:iam::210987654321:role/delta-log",
                    "aws.sts.endpoint",
                    "http://127.0.0.1:1")));
    assertEquals(
        "io.kcdelta.aws.S3aCredentialsProvider", conf.get("fs.s3a.aws.credentials.provider"));
    assertEquals("io.kcdelta.aws.IdentityScopedS3AFileSystem", conf.get("fs.s3a.impl"));
    assertTrue(conf.getBoolean("fs.s3a.impl.disable.cache", false));
    assertEquals("TOKEN", conf.get("fs.s3a.session.token"));
    assertEquals(
        "arn:aws:iam::123456789012:role/connector", conf.get("kcdelta.aws.assume.role.arn"));
    assertEquals("ext-1", conf.get("kcdelta.aws.assume.role.external.id"));
    assertEquals("kcdelta-orders-sink", conf.get("kcdelta.aws.assume.role.session.name"));
    assertEquals(
        "arn:aws:iam::210987654321:role/delta-log",
        conf.get("kcdelta.aws.dynamodb.assume.role.arn"));
    assertEquals("http://127.0.0.1:1", conf.get("kcdelta.aws.sts.endpoint"));
    assertTrue(conf.getBoolean("kcdelta.aws.identity.lookup", false), "roles: look up");
    assertNull(
        conf.get("kcdelta.logstore.dynamodb.access.key"),
        "DynamoDB takes S3A's keys, so both resolve to one provider");

    Configuration overridden =
        HadoopConfigurationFactory.create(
            new DeltaSinkConfig(
                props(
                    "hadoop.fs.s3a.aws.credentials.provider",
                    "software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider")));
    assertEquals(
        "software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider",
        overridden.get("fs.s3a.aws.credentials.provider"));
  }

  @Test
  void theIdentityIsLookedUpOnAwsButNotForStaticKeysOfAnotherS3Store() {
    assertTrue(
        HadoopConfigurationFactory.create(new DeltaSinkConfig(props()))
            .getBoolean("kcdelta.aws.identity.lookup", false));
    assertTrue(
        !HadoopConfigurationFactory.create(
                new DeltaSinkConfig(
                    props(
                        "s3.endpoint",
                        "http://127.0.0.1:9000",
                        "aws.access.key.id",
                        "minio",
                        "aws.secret.access.key",
                        "minio-secret")))
            .getBoolean("kcdelta.aws.identity.lookup", true));
    assertTrue(
        HadoopConfigurationFactory.create(
                new DeltaSinkConfig(
                    props(
                        "s3.endpoint",
                        "http://127.0.0.1:9000",
                        "aws.sts.endpoint",
                        "http://127.0.0.1:9001")))
            .getBoolean("kcdelta.aws.identity.lookup", false));
  }
}
