package io.kcdelta.record;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.DeltaSinkConfig.NullValueBehavior;
import io.kcdelta.metrics.SinkMetrics.ErrantCause;
import io.kcdelta.schema.RowKey;
import java.util.Collection;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Decides what a record becomes in its table: a row, nothing (an ignored tombstone), or an errant
 * record.
 */
public final class RecordCheck {

  /** The outcome for one record. */
  public sealed interface Verdict permits Row, Deleted, Ignored, Errant {}

  /**
   * A row, laid out for the table.
   *
   * @param key in upsert mode, the key whose row it becomes (null: appended)
   */
  public record Row(Struct value, RecordLayout layout, RowKey key) implements Verdict {}

  /** Upsert mode: the key's row is deleted. */
  public record Deleted(RowKey key) implements Verdict {}

  /** A tombstone that {@code behavior.on.null.values=ignore} skips: not an error, not a row. */
  public record Ignored() implements Verdict {}

  /** A record that cannot be a row of this table; the problem says what to fix. */
  public record Errant(DataException problem, ErrantCause cause) implements Verdict {}

  private static final Ignored IGNORED = new Ignored();

  private final NullValueBehavior nullValues;
  private final RecordOrigin origin;

  /** Null: rows are the values as they are. */
  private final RecordColumns columns;

  private final SchemalessRows schemaless;

  /** Null: append mode. */
  private final UpsertChanges upserts;

  public RecordCheck(DeltaSinkConfig config, RecordOrigin origin) {
    this.nullValues = config.nullValueBehavior();
    this.origin = origin;
    this.upserts =
        config.writeMode() == DeltaSinkConfig.WriteMode.UPSERT
            ? new UpsertChanges(config.upsertKeyColumns(), origin)
            : null;
    this.columns = RecordColumns.of(config, origin);
    this.schemaless = new SchemalessRows(config, columns == null ? Set.of() : columns.names());
  }

  /** Before the records of a put() are checked one by one (see {@link SchemalessRows}). */
  public void beforeBatch(
      Collection<SinkRecord> records, Function<SinkRecord, TableState> tableOf) {
    schemaless.inferNewTables(records, tableOf);
  }

  public Verdict check(SinkRecord record, TableState table) {
    if (upserts == null) {
      return rowOf(record, table);
    }
    UpsertChanges.Change change;
    try {
      change = upserts.change(record);
    } catch (DataException e) {
      return new Errant(e, ErrantCause.KEY);
    }
    if (change instanceof UpsertChanges.Delete delete) {
      return new Deleted(delete.key());
    }
    SinkRecord state = ((UpsertChanges.NewState) change).record();
    Verdict verdict = rowOf(state, table);
    if (!(verdict instanceof Row row)) {
      return verdict;
    }
    try {
      return new Row(row.value(), row.layout(), upserts.keyOf(state, row.value()));
    } catch (DataException e) {
      return new Errant(e, ErrantCause.KEY);
    }
  }

  private Verdict rowOf(SinkRecord record, TableState table) {
    Object value = record.value();
    if (value == null) {
      return nullValues == NullValueBehavior.FAIL
          ? new Errant(
              new DataException(
                  "Record "
                      + origin.describe(record)
                      + " has a null value (tombstone) and "
                      + DeltaSinkConfig.NULL_VALUES
                      + "=fail. Set it to 'ignore' to skip such records."),
              ErrantCause.NULL_VALUE)
          : IGNORED;
    }
    try {
      if (SchemalessRows.isSchemaless(record)) {
        Struct row;
        try {
          row = schemaless.row(record, table);
        } catch (DataException e) {
          return cannotBeWritten(record, table, e, ErrantCause.VALUE);
        }
        return row(record, row, table);
      }
      if (!(value instanceof Struct) || record.valueSchema() == null) {
        return new Errant(
            new DataException(
                "Record "
                    + origin.describe(record)
                    + " is neither a Connect Struct nor a JSON object (value type "
                    + value.getClass().getSimpleName()
                    + "). Use a converter that produces Structs (Avro, Protobuf, JSON Schema, "
                    + "JsonConverter with schemas.enable=true) or JSON objects (JsonConverter with "
                    + "schemas.enable=false)."),
            ErrantCause.UNSUPPORTED_VALUE);
      }
      if (columns == null) {
        return new Row((Struct) value, table.layoutFor(record.valueSchema()), null);
      }
      return row(record, (Struct) value, table);
    } catch (DataException e) {
      return cannotBeWritten(record, table, e, ErrantCause.SCHEMA);
    }
  }

  private Row row(SinkRecord record, Struct value, TableState table) {
    Struct row = columns == null ? value : columns.row(record, value);
    return new Row(row, table.layoutFor(row.schema()), null);
  }

  /** A record whose schema or value the table cannot take. */
  public Errant cannotBeWritten(
      SinkRecord record, TableState table, DataException cause, ErrantCause kind) {
    return new Errant(
        new DataException(
            "Record "
                + origin.describe(record)
                + " cannot be written to "
                + table.path()
                + ": "
                + cause.getMessage(),
            cause),
        kind);
  }
}
