package io.kcdelta.delta;

/**
 * The Delta table features this connector knows, by their protocol names, and what it does on a
 * table that has them. A feature not listed here fails the task at once ({@link TableFeatures}):
 * appending to a table whose rules we do not follow could break the table for every reader.
 */
public enum TableFeature {
  APPEND_ONLY("appendOnly", false, "appends only; compaction rewrites with dataChange=false"),
  INVARIANTS("invariants", false, "while no column has an invariant (else refused, naming it)"),
  CHECK_CONSTRAINTS(
      "checkConstraints", false, "while the table has no constraint (else refused, naming it)"),
  GENERATED_COLUMNS(
      "generatedColumns",
      false,
      "partition columns generated as CAST(ts AS DATE), YEAR/MONTH/DAY/HOUR(ts), DATE_FORMAT(ts,"
          + " 'yyyy-MM-dd-HH'), SUBSTRING(s, pos, len) or n - PMOD(n, w) are computed as Spark does"
          + " (UTC); any other generated column is refused, naming it"),
  IDENTITY_COLUMNS(
      "identityColumns", false, "while no column is an identity column (else refused, naming it)"),
  COLUMN_DEFAULTS(
      "allowColumnDefaults", false, "while no column has a default (else refused, naming it)"),
  CHANGE_DATA_FEED(
      "changeDataFeed", false, "appends need no change files: readers take adds as inserts"),
  COLUMN_MAPPING(
      "columnMapping",
      true,
      "name and id mode: files with physical names and field ids; stats and partition values by"
          + " physical name; added columns get ids and physical names"),
  DELETION_VECTORS(
      "deletionVectors",
      true,
      "appends write none; compaction drops the deleted rows of the files it merges, and rewrites a"
          + " file whose vector deletes a fifth of it or more"),
  ROW_TRACKING(
      "rowTracking",
      false,
      "baseRowId and defaultRowCommitVersion on every add, the high-water mark in the"
          + " delta.rowTracking domain; no compaction"),
  DOMAIN_METADATA("domainMetadata", false, "other writers' domains are kept"),
  TIMESTAMP_NTZ(
      "timestampNtz", true, "a Connect Timestamp goes into a timestamp_ntz column as UTC"),
  V2_CHECKPOINT(
      "v2Checkpoint",
      true,
      "reads v2 checkpoints; writes classic checkpoints (the protocol allows"
          + " them on every table)"),
  IN_COMMIT_TIMESTAMP(
      "inCommitTimestamp",
      false,
      "commitInfo first, with inCommitTimestamp = max(previous + 1, now)"),
  TYPE_WIDENING(
      "typeWidening",
      true,
      "narrower values written at the column's wider type; add-columns evolution widens a column"
          + " where delta.enableTypeWidening=true"),
  CLUSTERING("clustering", false, "stats cover the clustering columns"),
  VACUUM_PROTOCOL_CHECK(
      "vacuumProtocolCheck", true, "orphan cleanup runs only on tables whose features we know"),
  CHECKPOINT_PROTECTION("checkpointProtection", false, "no expired-log cleanup by the connector"),
  VARIANT_TYPE("variantType", true, "variant columns are left null: records cannot carry variants");

  private final String id;
  private final boolean readerWriter;
  private final String appends;

  TableFeature(String id, boolean readerWriter, String appends) {
    this.id = id;
    this.readerWriter = readerWriter;
    this.appends = appends;
  }

  /** The name in the protocol's readerFeatures/writerFeatures. */
  public String id() {
    return id;
  }

  /** Listed in readerFeatures too (else writers only). */
  public boolean readerWriter() {
    return readerWriter;
  }

  /** What the connector does on a table with this feature, for the README's feature table. */
  public String appends() {
    return appends;
  }

  /** The feature of that protocol name, or null. */
  public static TableFeature of(String id) {
    for (TableFeature f : values()) {
      if (f.id.equals(id)) {
        return f;
      }
    }
    return null;
  }
}
