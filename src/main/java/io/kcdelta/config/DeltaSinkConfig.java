package io.kcdelta.config;

import io.kcdelta.schema.GenerationExpression.Transform;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.SchemalessJson;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The connector's settings: names, defaults, documentation and validation (the public contract of
 * DESIGN.md).
 */
public final class DeltaSinkConfig extends AbstractConfig {

  public static final String TABLE_PATH = "delta.table.path";
  public static final String PARTITION_COLUMNS = "delta.table.partition.columns";
  public static final String AUTO_CREATE = "delta.table.auto.create";
  public static final String SCHEMA_EVOLUTION = "delta.schema.evolution";
  public static final String TXN_APP_ID = "delta.txn.app.id";
  public static final String FLUSH_INTERVAL_MS = "flush.interval.ms";
  public static final String FILE_MAX_BYTES = "file.max.bytes";
  public static final String FLUSH_SIZE_BYTES = "flush.size.bytes";
  public static final String COMPRESSION_CODEC = "parquet.compression.codec";
  public static final String COMMIT_RETRY_TIMEOUT_MS = "delta.commit.retry.timeout.ms";
  public static final String COMMIT_GROUP = "delta.commit.group";
  public static final String LOG_STORE = "delta.log.store";
  public static final String DYNAMODB_TABLE = "dynamodb.table.name";
  public static final String DYNAMODB_REGION = "dynamodb.region";
  public static final String DYNAMODB_ENDPOINT = "dynamodb.endpoint";
  public static final String DYNAMODB_AUTO_CREATE = "dynamodb.table.auto.create";
  public static final String S3_REGION = "s3.region";
  public static final String S3_ENDPOINT = "s3.endpoint";
  public static final String S3_PATH_STYLE = "s3.path.style.access";
  public static final String AWS_ACCESS_KEY_ID = "aws.access.key.id";
  public static final String AWS_SECRET_ACCESS_KEY = "aws.secret.access.key";
  public static final String AWS_SESSION_TOKEN = "aws.session.token";
  public static final String AWS_ASSUME_ROLE_ARN = "aws.assume.role.arn";
  public static final String AWS_ASSUME_ROLE_SESSION_NAME = "aws.assume.role.session.name";
  public static final String AWS_ASSUME_ROLE_EXTERNAL_ID = "aws.assume.role.external.id";
  public static final String AWS_ASSUME_ROLE_DURATION_SECONDS = "aws.assume.role.duration.seconds";
  public static final String AWS_STS_REGION = "aws.sts.region";
  public static final String AWS_STS_ENDPOINT = "aws.sts.endpoint";
  public static final String DYNAMODB_ASSUME_ROLE_ARN = "dynamodb.assume.role.arn";
  public static final String DYNAMODB_ASSUME_ROLE_EXTERNAL_ID = "dynamodb.assume.role.external.id";
  public static final String HADOOP_PREFIX = "hadoop.";
  public static final String COMPACTION_ENABLED = "compaction.enabled";
  public static final String COMPACTION_TARGET_FILE_BYTES = "compaction.target.file.bytes";
  public static final String COMPACTION_MIN_INPUT_FILES = "compaction.min.input.files";
  public static final String COMPACTION_INTERVAL_MS = "compaction.interval.ms";
  public static final String ORPHAN_RETENTION_MS = "orphan.retention.ms";
  public static final String NULL_VALUES = "behavior.on.null.values";
  public static final String WRITE_MODE = "delta.write.mode";
  public static final String UPSERT_KEY_COLUMNS = "delta.upsert.key.columns";
  public static final String SCHEMALESS_UNKNOWN_FIELDS = "delta.schemaless.unknown.fields";
  public static final String METADATA_COLUMNS = "delta.record.metadata.columns";
  public static final String METADATA_COLUMN = "delta.record.metadata.column";
  public static final String KEY_COLUMN = "delta.record.key.column";
  public static final String TIMESTAMP_DATE_COLUMN = "delta.record.timestamp.date.column";

  /** Set by Connect on every connector config; the default of {@link #TXN_APP_ID}. */
  public static final String CONNECTOR_NAME = "name";

  public static final String TOPIC_PLACEHOLDER = TablePathTemplate.TOPIC;

  public static final String LOG_STORE_DYNAMODB = "dynamodb";
  public static final String LOG_STORE_FILESYSTEM = "filesystem";
  public static final String LOG_STORE_S3_CONDITIONAL = "s3-conditional";

  private static final String GROUP_TABLE = "Delta table";
  private static final String GROUP_WRITE = "Files and commits";
  private static final String GROUP_LOG_STORE = "Log store (commit coordination)";
  private static final String GROUP_AWS = "S3 and AWS";
  private static final String GROUP_AWS_IDENTITY = "AWS credentials";
  private static final String GROUP_RECORDS = "Records";
  private static final String GROUP_RECORD_COLUMNS = "Kafka metadata and key columns";
  private static final String GROUP_MAINTENANCE = "Table maintenance";
  private static final String GROUP_UPSERT = "Upsert (change data capture)";

  private static final long DAY_MS = 86_400_000L;

  /** What {@link #METADATA_COLUMNS} may list, in the order of the metadata struct's fields. */
  public static final List<String> METADATA_FIELDS =
      List.of("topic", "partition", "offset", "timestamp", "timestamp.type", "headers");

  private static final List<String> CODECS =
      List.of("snappy", "zstd", "gzip", "lz4_raw", "uncompressed");
  private static final List<String> EVOLUTION_MODES = List.of("none", "add-columns");
  private static final List<String> NULL_BEHAVIORS = List.of("ignore", "fail");
  private static final List<String> WRITE_MODES = List.of("append", "upsert");
  private static final List<String> UNKNOWN_FIELD_MODES = List.of("ignore", "fail", "add-columns");
  private static final List<String> LOG_STORES =
      List.of(LOG_STORE_DYNAMODB, LOG_STORE_S3_CONDITIONAL, LOG_STORE_FILESYSTEM);

  /** Schemes whose table paths Hadoop can open with the plugin's bundled file systems. */
  private static final Set<String> SCHEMES = Set.of("s3a", "file");

  public static final ConfigDef CONFIG_DEF = configDef();

  public enum NullValueBehavior {
    IGNORE,
    FAIL
  }

  public enum WriteMode {
    APPEND,
    UPSERT
  }

  /** Topic to table path, from {@code delta.table.path.<topic>}. */
  private final Map<String, String> topicTables;

  public DeltaSinkConfig(Map<String, String> props) {
    super(CONFIG_DEF, props);
    this.topicTables = TopicTables.from(props);
    for (Problem problem : crossFieldProblems(props)) {
      throw new ConfigException(problem.key(), props.get(problem.key()), problem.message());
    }
  }

  private static ConfigDef configDef() {
    ConfigDef def = new ConfigDef();
    int o = 0;
    def.define(
        TABLE_PATH,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new TablePathValidator(),
        Importance.HIGH,
        "Root of the Delta table, with its scheme: s3a://bucket/prefix/table or file:///path/table. "
            + "'${topic}' is replaced by the record's topic, so one connector can fill one table per topic. "
            + "'${field:<name>}' (after the bucket) is replaced by the value of a top-level string field of "
            + "the record value, so one topic fills a table per value (e.g. per tenant); a value that is "
            + "missing, not a string or not path-safe ([A-Za-z0-9][A-Za-z0-9._-]*, at most 128 "
            + "characters) makes the record errant. A topic with a setting delta.table.path.<topic> goes "
            + "to that table instead.",
        GROUP_TABLE,
        ++o,
        Width.LONG,
        "Table path");
    def.define(
        PARTITION_COLUMNS,
        Type.LIST,
        "",
        new PartitionColumnsValidator(),
        Importance.MEDIUM,
        "Top-level fields of the record value that partition the table, in order, or transforms of a "
            + "field that become generated columns of the table (as Spark's GENERATED ALWAYS AS, on "
            + "which Spark and Delta prune partitions): day(f) = CAST(f AS DATE), hour(f) = "
            + "DATE_FORMAT(f, 'yyyy-MM-dd-HH'), month(f) = DATE_FORMAT(f, 'yyyy-MM'), year(f) = YEAR(f), "
            + "of a timestamp or date field, in UTC; truncate(f, w) = SUBSTRING(f, 1, w) of a string, "
            + "f - PMOD(f, w) of an integer. Named <field>_<transform> (truncate: <field>_trunc) unless "
            + "written name=transform(f). Used when the connector creates the table; an existing table "
            + "keeps its own partitioning (its generated partition columns of these forms are "
            + "computed too).",
        GROUP_TABLE,
        ++o,
        Width.LONG,
        "Partition columns");
    def.define(
        AUTO_CREATE,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Create the table from the first record's schema when it does not exist. When false, a missing "
            + "table fails the task.",
        GROUP_TABLE,
        ++o,
        Width.SHORT,
        "Create table");
    def.define(
        SCHEMA_EVOLUTION,
        Type.STRING,
        "add-columns",
        lowerCaseIn(EVOLUTION_MODES),
        Importance.MEDIUM,
        "What a record with new fields does to the table: 'add-columns' adds them as nullable columns; "
            + "'none' treats the record as one the table cannot take (errant record).",
        GROUP_TABLE,
        ++o,
        Width.SHORT,
        "Schema evolution",
        new FixedRecommender(EVOLUTION_MODES));
    def.define(
        TXN_APP_ID,
        Type.STRING,
        null,
        Importance.LOW,
        "Prefix of the Delta 'txn' appIds that record the Kafka offsets: '<prefix>-<topic>-<partition>'. "
            + "Defaults to the connector name. Two connectors writing the same topic into the same table "
            + "need different prefixes; renaming the connector without setting this restarts from the "
            + "consumer group's position instead of the table's.",
        GROUP_TABLE,
        ++o,
        Width.MEDIUM,
        "Txn app id prefix");

    o = 0;
    def.define(
        FLUSH_INTERVAL_MS,
        Type.LONG,
        60_000L,
        ConfigDef.Range.atLeast(100),
        Importance.HIGH,
        "Longest time a record waits before it is committed to the table, in milliseconds. Each commit "
            + "adds a version to the Delta log: shorter means fresher data and more, smaller files.",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "Flush interval (ms)");
    def.define(
        FLUSH_SIZE_BYTES,
        Type.LONG,
        134_217_728L,
        ConfigDef.Range.atLeast(0),
        Importance.MEDIUM,
        "Commit a table as soon as this task has about this many bytes buffered for it (data files "
            + "finished and open), without waiting for "
            + FLUSH_INTERVAL_MS
            + ": a busy table commits often and keeps less in memory, a quiet one still commits on time. "
            + "With "
            + COMMIT_GROUP
            + " the first task of a worker to reach it starts the worker's commit round for the table, "
            + "and the other tasks hand in whatever they hold for it then. 0: commits on time only.",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "Flush size (bytes)");
    def.define(
        FILE_MAX_BYTES,
        Type.LONG,
        134_217_728L,
        ConfigDef.Range.atLeast(1024),
        Importance.MEDIUM,
        "Roll a Parquet data file once it holds about this many bytes.",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "File size (bytes)");
    def.define(
        COMPRESSION_CODEC,
        Type.STRING,
        "snappy",
        lowerCaseIn(CODECS),
        Importance.LOW,
        "Parquet compression codec: " + String.join(", ", CODECS) + ".",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "Compression",
        new FixedRecommender(CODECS));
    def.define(
        COMMIT_RETRY_TIMEOUT_MS,
        Type.LONG,
        300_000L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "How long a task keeps retrying a commit or a file upload that fails for a passing reason "
            + "(S3 or DynamoDB unreachable, throttled) before it fails with an error that names the service.",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "Commit retry timeout (ms)");
    def.define(
        COMMIT_GROUP,
        Type.BOOLEAN,
        true,
        Importance.MEDIUM,
        "Tasks of this connector that run in the same worker and write the same table commit together: "
            + "one Delta commit per flush interval carries the files and Kafka offsets of all of them, so the "
            + "table gets about one version per worker per interval instead of one per task, and the tasks do "
            + "not race each other for the log. Each task's offsets are still checked on their own (a task "
            + "that lost its partitions is left out of the commit, the others commit). The commit waits at "
            + "most a tenth of "
            + FLUSH_INTERVAL_MS
            + " (and at most 2 s) for the worker's other tasks to hand in their batches. false: each task "
            + "commits on its own.",
        GROUP_WRITE,
        ++o,
        Width.SHORT,
        "Group commit");

    o = 0;
    def.define(
        COMPACTION_ENABLED,
        Type.BOOLEAN,
        false,
        Importance.MEDIUM,
        "Merge the table's small data files into files of about "
            + COMPACTION_TARGET_FILE_BYTES
            + ", inside the connector: no Spark OPTIMIZE job needed. One worker per table does it (the "
            + "one whose task holds partition 0 of a topic writing to the table), on a background "
            + "thread, one file at a time, in commits that remove and add files with dataChange=false "
            + "and no Kafka offsets (streaming readers skip them). A commit that removed one of the "
            + "same files first (Spark OPTIMIZE, DELETE, another compaction) wins; the compaction is "
            + "dropped and tried again later. Appends never conflict with it.",
        GROUP_MAINTENANCE,
        ++o,
        Width.SHORT,
        "Compaction");
    def.define(
        COMPACTION_TARGET_FILE_BYTES,
        Type.LONG,
        134_217_728L,
        ConfigDef.Range.atLeast(1_048_576L),
        Importance.LOW,
        "Size a compacted file aims at: at most this much is merged into one file. Files below half "
            + "of it, committed more than three flush intervals ago, are small and are merged.",
        GROUP_MAINTENANCE,
        ++o,
        Width.SHORT,
        "Compaction target (bytes)");
    def.define(
        COMPACTION_MIN_INPUT_FILES,
        Type.INT,
        8,
        ConfigDef.Range.atLeast(2),
        Importance.LOW,
        "Small files of a partition value are merged once at least this many of one size tier "
            + "(files within a factor of this number in size) are there; so at rest a partition value "
            + "keeps fewer small files than this per tier, and a byte is merged about once per tier.",
        GROUP_MAINTENANCE,
        ++o,
        Width.SHORT,
        "Compaction minimum files");
    def.define(
        COMPACTION_INTERVAL_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(1_000L),
        Importance.LOW,
        "How often the compacting worker looks for small files, in milliseconds.",
        GROUP_MAINTENANCE,
        ++o,
        Width.SHORT,
        "Compaction interval (ms)");
    def.define(
        ORPHAN_RETENTION_MS,
        Type.LONG,
        7 * DAY_MS,
        new OrphanRetentionValidator(),
        Importance.LOW,
        "Data files this connector wrote that no commit of the table references (left by a crash "
            + "between upload and commit, or a commit that failed) are deleted once they are older than "
            + "this, by the worker that compacts the table, once a day. Only files named like this "
            + "connector's, and only after the Delta log (its live files and the removed files it still "
            + "keeps) is checked not to reference them. At least one day (86400000); -1 turns it off.",
        GROUP_MAINTENANCE,
        ++o,
        Width.SHORT,
        "Orphan retention (ms)");

    o = 0;
    def.define(
        LOG_STORE,
        Type.STRING,
        null,
        lowerCaseInOrNull(LOG_STORES, "by the table path's scheme"),
        Importance.HIGH,
        "How writers of the table exclude each other on the Delta log. 'dynamodb' (default for s3a:// "
            + "tables): a DynamoDB table decides each log version, compatible with Delta's "
            + "S3DynamoDBLogStore used by Spark. 's3-conditional' (s3a:// only): each log version is "
            + "created with an S3 conditional write (If-None-Match), as delta-rs 1.x writers "
            + "(kafka-delta-ingest, Python) do; no DynamoDB; the endpoint is checked at start to honour "
            + "the condition. Never both on one table: a table with entries in the DynamoDB table is "
            + "refused with s3-conditional. 'filesystem' (default otherwise, file:// tables only): "
            + "each log version is created by a hard link, which the file system grants to one writer "
            + "only, so the tasks, workers and connectors that share the file system exclude each "
            + "other (Spark writers of the same file:// table, on Delta's default store, do not).",
        GROUP_LOG_STORE,
        ++o,
        Width.SHORT,
        "Log store",
        new FixedRecommender(LOG_STORES));
    def.define(
        DYNAMODB_TABLE,
        Type.STRING,
        "delta_log",
        new ConfigDef.NonEmptyString(),
        Importance.MEDIUM,
        "DynamoDB table of the log store. Spark jobs writing the same Delta table must use the same one.",
        GROUP_LOG_STORE,
        ++o,
        Width.MEDIUM,
        "DynamoDB table");
    def.define(
        DYNAMODB_REGION,
        Type.STRING,
        null,
        Importance.MEDIUM,
        "Region of the DynamoDB table. Defaults to s3.region, then to the AWS SDK's region chain.",
        GROUP_LOG_STORE,
        ++o,
        Width.SHORT,
        "DynamoDB region");
    def.define(
        DYNAMODB_ENDPOINT,
        Type.STRING,
        null,
        new UrlValidator(),
        Importance.LOW,
        "DynamoDB endpoint override, e.g. http://127.0.0.1:4567 for a local DynamoDB-compatible server.",
        GROUP_LOG_STORE,
        ++o,
        Width.LONG,
        "DynamoDB endpoint");
    def.define(
        DYNAMODB_AUTO_CREATE,
        Type.BOOLEAN,
        true,
        Importance.LOW,
        "Create the DynamoDB table when missing (on-demand billing, TTL on 'expireTime').",
        GROUP_LOG_STORE,
        ++o,
        Width.SHORT,
        "Create DynamoDB table");

    o = 0;
    def.define(
        S3_REGION,
        Type.STRING,
        null,
        Importance.MEDIUM,
        "AWS region of the bucket. Defaults to the AWS SDK's region chain.",
        GROUP_AWS,
        ++o,
        Width.SHORT,
        "S3 region");
    def.define(
        S3_ENDPOINT,
        Type.STRING,
        null,
        new UrlValidator(),
        Importance.LOW,
        "S3 endpoint override for S3-compatible stores, e.g. http://127.0.0.1:9000.",
        GROUP_AWS,
        ++o,
        Width.LONG,
        "S3 endpoint");
    def.define(
        S3_PATH_STYLE,
        Type.BOOLEAN,
        false,
        Importance.LOW,
        "Path-style bucket addressing (needed by most S3-compatible stores on localhost).",
        GROUP_AWS,
        ++o,
        Width.SHORT,
        "Path-style access");
    o = 0;
    def.define(
        AWS_ACCESS_KEY_ID,
        Type.STRING,
        null,
        Importance.MEDIUM,
        "Access key id of static credentials, with "
            + AWS_SECRET_ACCESS_KEY
            + ". Unset: the AWS SDK's default credential chain, in this order: Java system "
            + "properties (aws.accessKeyId), environment (AWS_ACCESS_KEY_ID), web identity token "
            + "file (EKS IRSA: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN), profile (~/.aws), "
            + "container credentials (ECS task role, EKS Pod Identity), EC2 instance profile. "
            + "Whatever the source, one credentials provider per connector config signs the "
            + "requests of both S3 and DynamoDB.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Access key id");
    def.define(
        AWS_SECRET_ACCESS_KEY,
        Type.PASSWORD,
        null,
        Importance.MEDIUM,
        "Secret key paired with " + AWS_ACCESS_KEY_ID + ".",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Secret access key");
    def.define(
        AWS_SESSION_TOKEN,
        Type.PASSWORD,
        null,
        Importance.LOW,
        "Session token of temporary static keys (from STS), with "
            + AWS_ACCESS_KEY_ID
            + " and "
            + AWS_SECRET_ACCESS_KEY
            + ". They do not refresh: once they expire the task fails (ExpiredToken). For a "
            + "long-running connector use "
            + AWS_ASSUME_ROLE_ARN
            + " or the default chain instead.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Session token");
    def.define(
        AWS_ASSUME_ROLE_ARN,
        Type.STRING,
        null,
        new RoleArnValidator(),
        Importance.MEDIUM,
        "IAM role to assume, with the static keys or the default chain as the base credentials: "
            + "S3 and DynamoDB then act as this role (e.g. one role per connector on a shared "
            + "Connect cluster or MSK Connect, or a role of the bucket's account). The session is "
            + "refreshed before it expires.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.LONG,
        "Assume role ARN");
    def.define(
        AWS_ASSUME_ROLE_SESSION_NAME,
        Type.STRING,
        null,
        new SessionNameValidator(),
        Importance.LOW,
        "Session name of the assumed role (it shows in CloudTrail and in the assumed-role ARN). "
            + "Default: 'kcdelta-' followed by the connector name (characters STS does not accept "
            + "replaced by '-', at most 64).",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Role session name");
    def.define(
        AWS_ASSUME_ROLE_EXTERNAL_ID,
        Type.STRING,
        null,
        new ExternalIdValidator(),
        Importance.LOW,
        "External id passed to AssumeRole, when the role's trust policy requires one "
            + "(condition sts:ExternalId).",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "Role external id");
    def.define(
        AWS_ASSUME_ROLE_DURATION_SECONDS,
        Type.INT,
        3600,
        ConfigDef.Range.between(900, 43200),
        Importance.LOW,
        "Session length asked of STS, in seconds. STS may grant less (the role's maximum session "
            + "duration; 1 hour when the base credentials are themselves a role session); the "
            + "session is refreshed before the expiry STS returns, whatever it is.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.SHORT,
        "Role session duration (s)");
    def.define(
        AWS_STS_REGION,
        Type.STRING,
        null,
        Importance.LOW,
        "Region of the STS endpoint that assumes the roles and tells the identity at task start "
            + "(GetCallerIdentity). Default: "
            + S3_REGION
            + ", else us-east-1.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.SHORT,
        "STS region");
    def.define(
        AWS_STS_ENDPOINT,
        Type.STRING,
        null,
        new UrlValidator(),
        Importance.LOW,
        "STS endpoint override, e.g. a VPC endpoint. The web identity provider of the default "
            + "chain (IRSA) takes its endpoint from the environment instead (AWS_REGION, "
            + "AWS_ENDPOINT_URL_STS), as every AWS SDK does.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.LONG,
        "STS endpoint");
    def.define(
        DYNAMODB_ASSUME_ROLE_ARN,
        Type.STRING,
        null,
        new RoleArnValidator(),
        Importance.LOW,
        "IAM role for DynamoDB only, when the log store's table lives in another account than "
            + "the connector's identity: assumed from that identity (the role of "
            + AWS_ASSUME_ROLE_ARN
            + " if set, else the base credentials) and refreshed like it. S3 keeps the connector's "
            + "identity.",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.LONG,
        "DynamoDB role ARN");
    def.define(
        DYNAMODB_ASSUME_ROLE_EXTERNAL_ID,
        Type.STRING,
        null,
        new ExternalIdValidator(),
        Importance.LOW,
        "External id for " + DYNAMODB_ASSUME_ROLE_ARN + ".",
        GROUP_AWS_IDENTITY,
        ++o,
        Width.MEDIUM,
        "DynamoDB role external id");

    o = 0;
    def.define(
        NULL_VALUES,
        Type.STRING,
        "ignore",
        lowerCaseIn(NULL_BEHAVIORS),
        Importance.MEDIUM,
        "Records with a null value (tombstones): 'ignore' skips them (their offsets still count as "
            + "processed), 'fail' treats them as errant records (dead letter queue with "
            + "errors.tolerance=all, else the task fails).",
        GROUP_RECORDS,
        ++o,
        Width.SHORT,
        "Null values",
        new FixedRecommender(NULL_BEHAVIORS));

    int u = 0;
    def.define(
        WRITE_MODE,
        Type.STRING,
        "append",
        lowerCaseIn(WRITE_MODES),
        Importance.HIGH,
        "'append' adds every record as a row. 'upsert' makes the table mirror a keyed change stream "
            + "(e.g. Debezium's): one row per key, the last state of the key, or none once it is "
            + "deleted. A record replaces its key's row; a tombstone (null value) deletes its key "
            + "(whatever "
            + NULL_VALUES
            + " says); a Debezium envelope (fields op, before, after) applies its op (c, r, u: the "
            + "after state; d: delete). Replaced and deleted rows are marked in deletion vectors in "
            + "the commit that carries the records' offsets, so each change applies exactly once. "
            + "The table needs deletion vectors (a table the connector creates gets them); a table "
            + "with the change data feed or row tracking is refused. Each key must stay in one "
            + "Kafka partition (Kafka's key partitioner and Debezium do that).",
        GROUP_UPSERT,
        ++u,
        Width.SHORT,
        "Write mode",
        new FixedRecommender(WRITE_MODES));
    def.define(
        UPSERT_KEY_COLUMNS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "In upsert mode, the top-level columns of the row that identify it (int8 to int64 or "
            + "string, never null). Default: the fields of the record key (a Struct, as Debezium's "
            + "key is). A delete (tombstone, or Debezium's d) takes the key's values from the record "
            + "key, or from the envelope's before state.",
        GROUP_UPSERT,
        ++u,
        Width.MEDIUM,
        "Key columns");

    def.define(
        SCHEMALESS_UNKNOWN_FIELDS,
        Type.STRING,
        "",
        lowerCaseInOrNull(UNKNOWN_FIELD_MODES, "by " + SCHEMA_EVOLUTION),
        Importance.MEDIUM,
        "Schemaless records (a JSON object without schema, e.g. JsonConverter with "
            + "schemas.enable=false) are written by the table's columns. A key the table has no "
            + "column for: 'ignore' drops it, 'fail' makes the record errant, 'add-columns' adds a "
            + "nullable column typed by its value (long, double, string, boolean, struct, array). "
            + "Default: 'add-columns' when "
            + SCHEMA_EVOLUTION
            + "=add-columns, else 'fail'.",
        GROUP_RECORDS,
        ++o,
        Width.SHORT,
        "Schemaless unknown keys",
        new FixedRecommender(UNKNOWN_FIELD_MODES));

    o = 0;
    def.define(
        METADATA_COLUMNS,
        Type.LIST,
        "",
        new MetadataFieldsValidator(),
        Importance.MEDIUM,
        "Kafka metadata to write with each row, into one struct column (named by "
            + METADATA_COLUMN
            + "): any of "
            + String.join(", ", METADATA_FIELDS)
            + ". The struct's fields are named like these, with '_' for '.' (timestamp_type); "
            + "topic, partition and offset are where the record is in Kafka (on Connect 3.6+ also "
            + "when an SMT renamed its topic); headers is a list of key/value structs, values as "
            + "strings. Empty: none.",
        GROUP_RECORD_COLUMNS,
        ++o,
        Width.LONG,
        "Metadata fields",
        new FixedRecommender(METADATA_FIELDS));
    def.define(
        METADATA_COLUMN,
        Type.STRING,
        "_kafka",
        new ColumnNameValidator(false),
        Importance.LOW,
        "Name of the struct column that holds the fields of " + METADATA_COLUMNS + ".",
        GROUP_RECORD_COLUMNS,
        ++o,
        Width.SHORT,
        "Metadata column");
    def.define(
        KEY_COLUMN,
        Type.STRING,
        "",
        new ColumnNameValidator(true),
        Importance.MEDIUM,
        "Column to write the record key into, typed by the key's Connect schema (a Struct key "
            + "becomes a struct column, a string key a string one, bytes binary); a key without a "
            + "schema is written as its string form. A primitive key column can partition the table. "
            + "Empty: the key is not written.",
        GROUP_RECORD_COLUMNS,
        ++o,
        Width.SHORT,
        "Key column");
    def.define(
        TIMESTAMP_DATE_COLUMN,
        Type.STRING,
        "",
        new ColumnNameValidator(true),
        Importance.MEDIUM,
        "Top-level date column holding the UTC date of the record's Kafka timestamp (null for a "
            + "record without one), e.g. kafka_date; list it in "
            + PARTITION_COLUMNS
            + " to partition the table by day. Empty: none.",
        GROUP_RECORD_COLUMNS,
        ++o,
        Width.SHORT,
        "Timestamp date column");
    return def;
  }

  /** A problem with a setting that only shows together with other settings. */
  public record Problem(String key, String message) {}

  /** Problems that involve several settings; ConfigDef validators see one value at a time. */
  public static List<Problem> crossFieldProblems(Map<String, String> props) {
    List<Problem> problems = new ArrayList<>(recordColumnProblems(props));
    if ("add-columns".equalsIgnoreCase(props.getOrDefault(SCHEMALESS_UNKNOWN_FIELDS, "").trim())
        && "none".equalsIgnoreCase(props.getOrDefault(SCHEMA_EVOLUTION, "").trim())) {
      problems.add(
          new Problem(
              SCHEMALESS_UNKNOWN_FIELDS,
              SCHEMALESS_UNKNOWN_FIELDS
                  + "=add-columns adds columns, which "
                  + SCHEMA_EVOLUTION
                  + "=none forbids: choose 'ignore' or 'fail', or allow add-columns."));
    }
    problems.addAll(upsertProblems(props));
    problems.addAll(logStoreProblems(props));
    TableProperties.problems(props)
        .forEach((key, message) -> problems.add(new Problem(key, message)));
    TopicTables.problems(props).forEach((key, message) -> problems.add(new Problem(key, message)));
    problems.addAll(awsCredentialProblems(props));
    return problems;
  }

  /** Upsert mode with what it cannot do yet. */
  private static List<Problem> upsertProblems(Map<String, String> props) {
    List<Problem> problems = new ArrayList<>();
    if (!"upsert".equalsIgnoreCase(props.getOrDefault(WRITE_MODE, "").trim())) {
      return problems;
    }
    List<String> keys =
        Arrays.stream(props.getOrDefault(UPSERT_KEY_COLUMNS, "").split(","))
            .map(String::trim)
            .filter(k -> !k.isEmpty())
            .toList();
    for (String spec :
        partitionSpecs(Arrays.asList(props.getOrDefault(PARTITION_COLUMNS, "").split(",")))) {
      Transform t;
      try {
        t = Transform.parse(spec);
      } catch (IllegalArgumentException e) {
        continue; // the partition columns' own validator says what is wrong
      }
      String column = t == null ? spec.trim() : t.column();
      if (keys.contains(column)) {
        problems.add(
            new Problem(
                UPSERT_KEY_COLUMNS,
                "The key column '"
                    + column
                    + "' is also a partition column: a key's rows are found by the values in the"
                    + " data files, which a partition column is not in. Partition by other"
                    + " columns."));
      }
    }
    List<String> paths = new ArrayList<>();
    paths.add(props.getOrDefault(TABLE_PATH, ""));
    paths.addAll(TopicTables.from(props).values());
    for (String path : paths) {
      try {
        if (TablePathTemplate.parse(path).byField()) {
          problems.add(
              new Problem(
                  WRITE_MODE,
                  WRITE_MODE
                      + "=upsert does not take a table path routed by ${field:...} ("
                      + path
                      + "): a key's changes must reach one table. Route by topic, or append."));
        }
      } catch (IllegalArgumentException e) {
        // The path's own validator says what is wrong with it.
      }
    }
    return problems;
  }

  /**
   * Half a key pair, or a token or external id without what it belongs to: silently falling back to
   * the default chain or ignoring the setting would sign with other credentials than meant.
   */
  private static List<Problem> awsCredentialProblems(Map<String, String> props) {
    List<Problem> problems = new ArrayList<>();
    boolean id = isSet(props, AWS_ACCESS_KEY_ID);
    boolean secret = isSet(props, AWS_SECRET_ACCESS_KEY);
    if (id != secret) {
      String missing = id ? AWS_SECRET_ACCESS_KEY : AWS_ACCESS_KEY_ID;
      problems.add(
          new Problem(
              missing,
              AWS_ACCESS_KEY_ID
                  + " and "
                  + AWS_SECRET_ACCESS_KEY
                  + " go together: set "
                  + missing
                  + " too, or neither (the AWS default credential chain)."));
    }
    if (isSet(props, AWS_SESSION_TOKEN) && !(id && secret)) {
      problems.add(
          new Problem(
              AWS_SESSION_TOKEN,
              AWS_SESSION_TOKEN
                  + " belongs to temporary keys: set "
                  + AWS_ACCESS_KEY_ID
                  + " and "
                  + AWS_SECRET_ACCESS_KEY
                  + " with it."));
    }
    for (String[] pair :
        new String[][] {
          {AWS_ASSUME_ROLE_EXTERNAL_ID, AWS_ASSUME_ROLE_ARN},
          {AWS_ASSUME_ROLE_SESSION_NAME, AWS_ASSUME_ROLE_ARN},
          {DYNAMODB_ASSUME_ROLE_EXTERNAL_ID, DYNAMODB_ASSUME_ROLE_ARN}
        }) {
      if (isSet(props, pair[0]) && !isSet(props, pair[1])) {
        problems.add(
            new Problem(
                pair[0], pair[0] + " has no effect without " + pair[1] + ": set the role too."));
      }
    }
    return problems;
  }

  private static boolean isSet(Map<String, String> props, String key) {
    String v = props.get(key);
    return v != null && !v.isBlank();
  }

  /**
   * Added columns must not share a name (Delta column names ignore case) or partition by a struct.
   */
  private static List<Problem> recordColumnProblems(Map<String, String> props) {
    Map<String, String> columns = new LinkedHashMap<>();
    String metadata = props.getOrDefault(METADATA_COLUMN, "_kafka").trim();
    if (!props.getOrDefault(METADATA_COLUMNS, "").isBlank()) {
      columns.put(METADATA_COLUMN, metadata);
    }
    columns.put(KEY_COLUMN, props.getOrDefault(KEY_COLUMN, "").trim());
    columns.put(TIMESTAMP_DATE_COLUMN, props.getOrDefault(TIMESTAMP_DATE_COLUMN, "").trim());
    List<Problem> problems = new ArrayList<>();
    Map<String, String> settingOf = new HashMap<>();
    columns.forEach(
        (setting, column) -> {
          if (column.isEmpty()) {
            return;
          }
          String other = settingOf.putIfAbsent(column.toLowerCase(Locale.ROOT), setting);
          if (other != null) {
            problems.add(
                new Problem(
                    setting,
                    setting
                        + " and "
                        + other
                        + " both name the column '"
                        + column
                        + "'; give each its own name."));
          }
        });
    if (columns.containsKey(METADATA_COLUMN)) {
      for (String partition : props.getOrDefault(PARTITION_COLUMNS, "").split(",")) {
        if (partition.trim().equalsIgnoreCase(metadata)) {
          problems.add(
              new Problem(
                  PARTITION_COLUMNS,
                  "'"
                      + metadata
                      + "' is the struct column of "
                      + METADATA_COLUMNS
                      + " and cannot partition the table (Delta partitions by top-level primitive "
                      + "columns). To partition by day, set "
                      + TIMESTAMP_DATE_COLUMN
                      + " and list that column."));
        }
      }
    }
    return problems;
  }

  private static List<Problem> logStoreProblems(Map<String, String> props) {
    String path = props.get(TABLE_PATH);
    String store = props.get(LOG_STORE);
    if (path == null || store == null) {
      return List.of();
    }
    String scheme = schemeOf(path);
    String chosen = store.trim().toLowerCase(Locale.ROOT);
    if (LOG_STORE_FILESYSTEM.equals(chosen) && "s3a".equals(scheme)) {
      return List.of(
          new Problem(
              LOG_STORE,
              LOG_STORE
                  + "=filesystem is for file:// tables. On an s3a:// table it would mean Delta's "
                  + "S3SingleDriverLogStore, which excludes writers only inside one JVM: two workers "
                  + "of this connector could take the same log version and lose commits. Use "
                  + LOG_STORE
                  + "=dynamodb (shared with Spark writers) or "
                  + LOG_STORE
                  + "=s3-conditional (shared with delta-rs writers; no DynamoDB)."));
    }
    if (LOG_STORE_S3_CONDITIONAL.equals(chosen) && !"s3a".equals(scheme)) {
      return List.of(
          new Problem(
              LOG_STORE,
              LOG_STORE
                  + "=s3-conditional creates log versions with S3 conditional writes, for s3a:// "
                  + "tables only, but "
                  + TABLE_PATH
                  + " is '"
                  + path
                  + "'. Use "
                  + LOG_STORE
                  + "=filesystem for this path."));
    }
    if (LOG_STORE_DYNAMODB.equalsIgnoreCase(store.trim()) && !"s3a".equals(scheme)) {
      return List.of(
          new Problem(
              LOG_STORE,
              LOG_STORE
                  + "=dynamodb coordinates commits on s3a:// tables "
                  + "only, but "
                  + TABLE_PATH
                  + " is '"
                  + path
                  + "'. Use "
                  + LOG_STORE
                  + "=filesystem for this path."));
    }
    return List.of();
  }

  // ---- typed accessors ----

  public String tablePathTemplate() {
    return getString(TABLE_PATH).trim();
  }

  /**
   * The table path for a topic: its own ({@code delta.table.path.<topic>}) or {@code
   * delta.table.path}, ${topic} expanded; only for topics not routed by field.
   */
  public String tablePath(String topic) {
    TablePathTemplate template = tablePathTemplate(topic);
    if (template.byField()) {
      throw new IllegalStateException(template + " routes by field: each record has its table");
    }
    return template.resolve(topic, field -> field);
  }

  /** The template of the topic's table paths: its own or {@code delta.table.path}. */
  public TablePathTemplate tablePathTemplate(String topic) {
    return TablePathTemplate.parse(topicTables.getOrDefault(topic, tablePathTemplate()));
  }

  /** Whether any topic's records choose their tables by the values of fields. */
  public boolean routesByField() {
    return TablePathTemplate.parse(tablePathTemplate()).byField()
        || topicTables.values().stream().anyMatch(t -> TablePathTemplate.parse(t).byField());
  }

  /** The partition columns of a table the connector creates, by name (transforms named). */
  public List<String> partitionColumns() {
    List<String> out = new ArrayList<>();
    for (String spec : partitionSpecs(getList(PARTITION_COLUMNS))) {
      Transform t = Transform.parse(spec);
      out.add(t == null ? spec : t.column());
    }
    return out;
  }

  /** The partition columns that a transform derives from a field, by column name. */
  public Map<String, Transform> partitionTransforms() {
    Map<String, Transform> out = new LinkedHashMap<>();
    for (String spec : partitionSpecs(getList(PARTITION_COLUMNS))) {
      Transform t = Transform.parse(spec);
      if (t != null) {
        out.put(t.column(), t);
      }
    }
    return out;
  }

  /**
   * The entries of the partition column list: Connect splits a list at every comma, also the one of
   * {@code truncate(f, 4)}, which is put back together here.
   */
  static List<String> partitionSpecs(List<String> split) {
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String raw : split) {
      String part = raw.trim();
      if (current != null) {
        current.append(", ").append(part);
        if (part.contains(")")) {
          out.add(current.toString());
          current = null;
        }
      } else if (part.contains("(") && !part.contains(")")) {
        current = new StringBuilder(part);
      } else if (!part.isEmpty()) {
        out.add(part);
      }
    }
    if (current != null) {
      out.add(current.toString());
    }
    return out;
  }

  public boolean autoCreate() {
    return getBoolean(AUTO_CREATE);
  }

  public SchemaEvolution.Mode schemaEvolution() {
    return "none".equals(getString(SCHEMA_EVOLUTION).trim().toLowerCase(Locale.ROOT))
        ? SchemaEvolution.Mode.NONE
        : SchemaEvolution.Mode.ADD_COLUMNS;
  }

  public String txnAppIdPrefix() {
    String id = getString(TXN_APP_ID);
    if (id == null || id.isBlank()) {
      id = originalsStrings().get(CONNECTOR_NAME);
    }
    if (id == null || id.isBlank()) {
      throw new ConfigException(
          TXN_APP_ID,
          null,
          "Set "
              + TXN_APP_ID
              + " (or the connector 'name'): it identifies this connector's offsets in the table.");
    }
    return id.trim();
  }

  /**
   * The connector's name as Connect gave it ("name"), or "unnamed" outside Connect (tools, tests).
   */
  public String connectorName() {
    String name = originalsStrings().get(CONNECTOR_NAME);
    return name == null || name.isBlank() ? "unnamed" : name;
  }

  public long flushIntervalMs() {
    return getLong(FLUSH_INTERVAL_MS);
  }

  public long fileMaxBytes() {
    return getLong(FILE_MAX_BYTES);
  }

  /** Buffered bytes at which a table commits before its interval (0: never). */
  public long flushSizeBytes() {
    return getLong(FLUSH_SIZE_BYTES);
  }

  public CompressionCodecName compressionCodec() {
    return CompressionCodecName.valueOf(
        getString(COMPRESSION_CODEC).trim().toUpperCase(Locale.ROOT));
  }

  public boolean compactionEnabled() {
    return getBoolean(COMPACTION_ENABLED);
  }

  public long compactionTargetFileBytes() {
    return getLong(COMPACTION_TARGET_FILE_BYTES);
  }

  public int compactionMinInputFiles() {
    return getInt(COMPACTION_MIN_INPUT_FILES);
  }

  public long compactionIntervalMs() {
    return getLong(COMPACTION_INTERVAL_MS);
  }

  /** How old an unreferenced file of ours must be to be deleted (-1: never). */
  public long orphanRetentionMs() {
    return getLong(ORPHAN_RETENTION_MS);
  }

  public boolean commitGroup() {
    return getBoolean(COMMIT_GROUP);
  }

  public long commitRetryTimeoutMs() {
    return getLong(COMMIT_RETRY_TIMEOUT_MS);
  }

  /**
   * The effective log store: the configured one, else dynamodb for s3a:// and filesystem otherwise.
   */
  public String logStore() {
    String configured = getString(LOG_STORE);
    if (configured != null && !configured.isBlank()) {
      return configured.trim().toLowerCase(Locale.ROOT);
    }
    return "s3a".equals(schemeOf(tablePathTemplate())) ? LOG_STORE_DYNAMODB : LOG_STORE_FILESYSTEM;
  }

  public String dynamoDbTable() {
    return getString(DYNAMODB_TABLE).trim();
  }

  public String dynamoDbRegion() {
    String region = getString(DYNAMODB_REGION);
    return region != null && !region.isBlank() ? region.trim() : s3Region();
  }

  public String dynamoDbEndpoint() {
    return trimmedOrNull(getString(DYNAMODB_ENDPOINT));
  }

  public boolean dynamoDbAutoCreate() {
    return getBoolean(DYNAMODB_AUTO_CREATE);
  }

  public String s3Region() {
    return trimmedOrNull(getString(S3_REGION));
  }

  public String s3Endpoint() {
    return trimmedOrNull(getString(S3_ENDPOINT));
  }

  public boolean s3PathStyleAccess() {
    return getBoolean(S3_PATH_STYLE);
  }

  public String awsAccessKeyId() {
    return trimmedOrNull(getString(AWS_ACCESS_KEY_ID));
  }

  public Password awsSecretAccessKey() {
    return getPassword(AWS_SECRET_ACCESS_KEY);
  }

  /** Null: none (also when blank). */
  public Password awsSessionToken() {
    Password token = getPassword(AWS_SESSION_TOKEN);
    return token == null || token.value().isBlank() ? null : token;
  }

  public String assumeRoleArn() {
    return trimmedOrNull(getString(AWS_ASSUME_ROLE_ARN));
  }

  /** The configured session name, else one derived from the connector name. */
  public String assumeRoleSessionName() {
    String configured = trimmedOrNull(getString(AWS_ASSUME_ROLE_SESSION_NAME));
    return configured != null ? configured : SessionNameValidator.derive(connectorName());
  }

  public String assumeRoleExternalId() {
    return trimmedOrNull(getString(AWS_ASSUME_ROLE_EXTERNAL_ID));
  }

  public int assumeRoleDurationSeconds() {
    return getInt(AWS_ASSUME_ROLE_DURATION_SECONDS);
  }

  /** aws.sts.region, else s3.region, else us-east-1 (STS's global partition region). */
  public String stsRegion() {
    String region = trimmedOrNull(getString(AWS_STS_REGION));
    if (region == null) {
      region = s3Region();
    }
    return region == null ? "us-east-1" : region;
  }

  public String stsEndpoint() {
    return trimmedOrNull(getString(AWS_STS_ENDPOINT));
  }

  public String dynamoDbAssumeRoleArn() {
    return trimmedOrNull(getString(DYNAMODB_ASSUME_ROLE_ARN));
  }

  public String dynamoDbAssumeRoleExternalId() {
    return trimmedOrNull(getString(DYNAMODB_ASSUME_ROLE_EXTERNAL_ID));
  }

  /**
   * The table properties of a table the connector creates ({@code delta.table.properties.<name>}),
   * prefix removed.
   */
  public Map<String, String> tableProperties() {
    return TableProperties.from(originals());
  }

  /** {@code hadoop.<key>} settings with the prefix removed. */
  public Map<String, Object> hadoopOverrides() {
    return originalsWithPrefix(HADOOP_PREFIX);
  }

  public SchemalessJson.UnknownFields schemalessUnknownFields() {
    String mode = getString(SCHEMALESS_UNKNOWN_FIELDS).trim().toLowerCase(Locale.ROOT);
    if (mode.isEmpty()) {
      return schemaEvolution() == SchemaEvolution.Mode.ADD_COLUMNS
          ? SchemalessJson.UnknownFields.ADD_COLUMNS
          : SchemalessJson.UnknownFields.FAIL;
    }
    return SchemalessJson.UnknownFields.valueOf(mode.replace('-', '_').toUpperCase(Locale.ROOT));
  }

  /** The entries of {@link #METADATA_COLUMNS}, lower case, in the order listed. */
  public List<String> metadataFields() {
    return getList(METADATA_COLUMNS).stream()
        .map(f -> f.trim().toLowerCase(Locale.ROOT))
        .filter(f -> !f.isEmpty())
        .toList();
  }

  public String metadataColumn() {
    return getString(METADATA_COLUMN).trim();
  }

  /** Null: the key is not written. */
  public String keyColumn() {
    return trimmedOrNull(getString(KEY_COLUMN));
  }

  /** Null: no date column. */
  public String timestampDateColumn() {
    return trimmedOrNull(getString(TIMESTAMP_DATE_COLUMN));
  }

  public WriteMode writeMode() {
    return WriteMode.valueOf(getString(WRITE_MODE).trim().toUpperCase(Locale.ROOT));
  }

  /** The configured key columns; empty: the fields of each record's key. */
  public List<String> upsertKeyColumns() {
    return getList(UPSERT_KEY_COLUMNS).stream()
        .map(String::trim)
        .filter(c -> !c.isEmpty())
        .toList();
  }

  public NullValueBehavior nullValueBehavior() {
    return NullValueBehavior.valueOf(getString(NULL_VALUES).trim().toUpperCase(Locale.ROOT));
  }

  private static String trimmedOrNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  static String schemeOf(String path) {
    try {
      String scheme = new URI(TablePathTemplate.parse(path).sample()).getScheme();
      return scheme == null ? null : scheme.toLowerCase(Locale.ROOT);
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }

  // ---- validators and recommenders ----

  private static ConfigDef.Validator lowerCaseIn(List<String> allowed) {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        String v = value == null ? null : value.toString().trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(v)) {
          throw new ConfigException(
              name, value, "Must be one of " + String.join(", ", allowed) + ".");
        }
      }

      @Override
      public String toString() {
        return String.join(", ", allowed);
      }
    };
  }

  /** One of {@code allowed}, or blank for the default that {@code byDefault} describes. */
  private static ConfigDef.Validator lowerCaseInOrNull(List<String> allowed, String byDefault) {
    ConfigDef.Validator inner = lowerCaseIn(allowed);
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        if (value != null && !value.toString().isBlank()) {
          inner.ensureValid(name, value);
        }
      }

      @Override
      public String toString() {
        return inner + " (default: " + byDefault + ")";
      }
    };
  }

  static final class TablePathValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      if (value == null || value.toString().isBlank()) {
        throw new ConfigException(
            name, value, "Give the table root, e.g. s3a://bucket/warehouse/orders.");
      }
      String path = value.toString().trim();
      String scheme;
      try {
        URI uri = new URI(TablePathTemplate.parse(path).sample());
        scheme = uri.getScheme();
        if (uri.getUserInfo() != null) {
          throw new ConfigException(
              name,
              path,
              "Do not put credentials in the path; use "
                  + AWS_ACCESS_KEY_ID
                  + " and "
                  + AWS_SECRET_ACCESS_KEY
                  + ".");
        }
      } catch (URISyntaxException e) {
        throw new ConfigException(name, path, "Not a valid URI: " + e.getMessage());
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, path, e.getMessage());
      }
      if (scheme == null) {
        throw new ConfigException(
            name,
            path,
            "The path has no scheme. Write s3a://bucket/path for S3 or file:///absolute/path for a local table.");
      }
      if ("s3".equalsIgnoreCase(scheme) || "s3n".equalsIgnoreCase(scheme)) {
        throw new ConfigException(
            name,
            path,
            "Use the s3a:// scheme (Hadoop's S3A file system) instead of "
                + scheme
                + "://. Note that the scheme is part of the DynamoDB log store key: Spark writers of the "
                + "same table must use s3a:// too.");
      }
      if (!SCHEMES.contains(scheme.toLowerCase(Locale.ROOT))) {
        throw new ConfigException(
            name, path, "Unsupported scheme '" + scheme + "': use s3a:// or file://.");
      }
    }

    @Override
    public String toString() {
      return "s3a://… or file://… URI";
    }
  }

  static final class PartitionColumnsValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      @SuppressWarnings("unchecked")
      List<String> split = (List<String>) value;
      Set<String> seen = new HashSet<>();
      for (String raw : split) {
        if (raw.trim().isEmpty()) {
          throw new ConfigException(name, value, "Empty column name in the list.");
        }
      }
      for (String spec : partitionSpecs(split)) {
        String col = spec;
        Transform transform;
        try {
          transform = Transform.parse(spec);
        } catch (IllegalArgumentException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
        if (transform != null) {
          ColumnNameValidator.checkCharacters(name, value, transform.field());
          col = transform.column();
        }
        if (col.contains(".")) {
          throw new ConfigException(
              name,
              value,
              "'"
                  + col
                  + "': partition columns must be top-level fields "
                  + "of the record value (no nested paths).");
        }
        ColumnNameValidator.checkCharacters(name, value, col);
        if (!seen.add(col.toLowerCase(Locale.ROOT))) {
          throw new ConfigException(name, value, "Column '" + col + "' is listed twice.");
        }
      }
    }

    @Override
    public String toString() {
      return "comma-separated top-level field names, or transforms of one: [column=]year|month|day|"
          + "hour(field), [column=]truncate(field, width)";
    }
  }

  static final class MetadataFieldsValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      @SuppressWarnings("unchecked")
      List<String> fields = (List<String>) value;
      Set<String> seen = new HashSet<>();
      for (String raw : fields) {
        String field = raw.trim().toLowerCase(Locale.ROOT);
        if (!METADATA_FIELDS.contains(field)) {
          throw new ConfigException(
              name,
              value,
              "'" + raw.trim() + "' is not one of " + String.join(", ", METADATA_FIELDS) + ".");
        }
        if (!seen.add(field)) {
          throw new ConfigException(name, value, "'" + field + "' is listed twice.");
        }
      }
    }

    @Override
    public String toString() {
      return "comma-separated subset of " + String.join(",", METADATA_FIELDS);
    }
  }

  /** A top-level column name (empty allowed when {@code optional}: no column). */
  static final class ColumnNameValidator implements ConfigDef.Validator {
    private final boolean optional;

    ColumnNameValidator(boolean optional) {
      this.optional = optional;
    }

    @Override
    public void ensureValid(String name, Object value) {
      String column = value == null ? "" : value.toString().trim();
      if (column.isEmpty()) {
        if (!optional) {
          throw new ConfigException(name, value, "Give a column name.");
        }
        return;
      }
      checkCharacters(name, value, column);
    }

    /** Column names of this connector's settings: letters, digits, '_' and '-'. */
    static void checkCharacters(String name, Object value, String column) {
      if (!column.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
        throw new ConfigException(
            name, value, "'" + column + "': use letters, digits, '_' or '-' only.");
      }
    }

    @Override
    public String toString() {
      return (optional ? "empty (none) or " : "") + "a column name: letters, digits, '_', '-'";
    }
  }

  static final class OrphanRetentionValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      long ms = (Long) value;
      if (ms != -1 && ms < DAY_MS) {
        throw new ConfigException(
            name,
            value,
            "must be at least one day (86400000): a younger unreferenced file may still be on its "
                + "way into a commit. -1 turns orphan cleanup off.");
      }
    }

    @Override
    public String toString() {
      return "-1 or at least 86400000";
    }
  }

  /** An IAM role ARN: arn:PARTITION:iam::ACCOUNT:role/[PATH/]NAME. Blank: none. */
  static final class RoleArnValidator implements ConfigDef.Validator {
    private static final Pattern ROLE_ARN =
        Pattern.compile("arn:aws[a-z-]*:iam::\\d{12}:role/[\\w+=,.@/-]{1,512}");

    @Override
    public void ensureValid(String name, Object value) {
      if (value == null || value.toString().isBlank()) {
        return;
      }
      if (!ROLE_ARN.matcher(value.toString().trim()).matches()) {
        throw new ConfigException(
            name,
            value,
            "Not an IAM role ARN; expected arn:aws:iam::123456789012:role/NAME (the role's ARN, "
                + "not an assumed-role or user ARN).");
      }
    }

    @Override
    public String toString() {
      return "IAM role ARN, e.g. arn:aws:iam::123456789012:role/NAME";
    }
  }

  /** What STS accepts as RoleSessionName: 2 to 64 of [\w+=,.@-]. */
  static final class SessionNameValidator implements ConfigDef.Validator {
    private static final Pattern NAME = Pattern.compile("[\\w+=,.@-]{2,64}");

    @Override
    public void ensureValid(String name, Object value) {
      if (value == null || value.toString().isBlank()) {
        return;
      }
      if (!NAME.matcher(value.toString().trim()).matches()) {
        throw new ConfigException(
            name, value, "2 to 64 letters, digits or any of _+=,.@- (what STS accepts).");
      }
    }

    /** 'kcdelta-' + the connector name, made acceptable to STS. */
    static String derive(String connectorName) {
      String name = ("kcdelta-" + connectorName).replaceAll("[^\\w+=,.@-]", "-");
      return name.length() > 64 ? name.substring(0, 64) : name;
    }

    @Override
    public String toString() {
      return "2-64 of [A-Za-z0-9_+=,.@-]";
    }
  }

  /** What STS accepts as ExternalId: 2 to 1224 of [\w+=,.@:/-]. */
  static final class ExternalIdValidator implements ConfigDef.Validator {
    private static final Pattern ID = Pattern.compile("[\\w+=,.@:/-]{2,1224}");

    @Override
    public void ensureValid(String name, Object value) {
      if (value == null || value.toString().isBlank()) {
        return;
      }
      if (!ID.matcher(value.toString().trim()).matches()) {
        throw new ConfigException(
            name, value, "2 to 1224 letters, digits or any of _+=,.@:/- (what STS accepts).");
      }
    }

    @Override
    public String toString() {
      return "2-1224 of [A-Za-z0-9_+=,.@:/-]";
    }
  }

  static final class UrlValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      if (value == null || value.toString().isBlank()) {
        return;
      }
      try {
        URI uri = new URI(value.toString().trim());
        if (uri.getScheme() == null || uri.getHost() == null) {
          throw new ConfigException(
              name, value, "Give a URL with scheme and host, e.g. https://host:port.");
        }
      } catch (URISyntaxException e) {
        throw new ConfigException(name, value, "Not a valid URL: " + e.getMessage());
      }
    }

    @Override
    public String toString() {
      return "URL, e.g. http://127.0.0.1:4567";
    }
  }

  private record FixedRecommender(List<String> values) implements ConfigDef.Recommender {
    @Override
    public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
      return List.copyOf(values);
    }

    @Override
    public boolean visible(String name, Map<String, Object> parsedConfig) {
      return true;
    }
  }
}
