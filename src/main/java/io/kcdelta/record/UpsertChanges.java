package io.kcdelta.record;

import io.kcdelta.schema.RowKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Upsert mode: what change a record is, and the key it changes. A tombstone deletes its key; a
 * Debezium envelope (fields {@code op}, {@code before}, {@code after}) is its op, c/r/u the after
 * state and d a delete; a flattened Debezium row with {@code __deleted} "true" a delete; any other
 * record is its key's new row.
 */
final class UpsertChanges {
  private final List<String> keyColumns;
  private final RecordOrigin origin;

  /** The last record key schema and its field names: a topic's keys share one schema object. */
  private Schema lastKeySchema;

  private List<String> lastKeyFields;

  /**
   * @param keyColumns the configured key columns; empty: the record key's fields
   */
  UpsertChanges(List<String> keyColumns, RecordOrigin origin) {
    this.keyColumns = List.copyOf(keyColumns);
    this.origin = origin;
  }

  /** A record's change before its row is laid out: the record of the new state, or a delete. */
  sealed interface Change permits NewState, Delete {}

  /** The key's new row: this record (an envelope's after state, unwrapped). */
  record NewState(SinkRecord record) implements Change {}

  record Delete(RowKey key) implements Change {}

  /**
   * @throws DataException the record is no change this mode understands, or has no usable key
   */
  Change change(SinkRecord record) {
    Object value = record.value();
    if (value == null) {
      return new Delete(keyOfDeleted(record, null));
    }
    if (value instanceof Struct envelope && isEnvelope(record.valueSchema())) {
      String op = envelope.getString("op");
      switch (op == null ? "" : op) {
        case "c", "r", "u" -> {
          Struct after = envelope.getStruct("after");
          if (after == null) {
            throw problem(record, "is a Debezium '" + op + "' without an after state");
          }
          return new NewState(
              record.newRecord(
                  record.topic(),
                  record.kafkaPartition(),
                  record.keySchema(),
                  record.key(),
                  after.schema(),
                  after,
                  record.timestamp()));
        }
        case "d" -> {
          return new Delete(keyOfDeleted(record, envelope.getStruct("before")));
        }
        default ->
            throw problem(
                record,
                "is a Debezium change of op '"
                    + op
                    + "', which upsert mode does not apply (c, r, u and d are)");
      }
    }
    if (value instanceof Struct flattened && isDeletedFlag(flattened)) {
      return new Delete(keyOfDeleted(record, flattened));
    }
    return new NewState(record);
  }

  /**
   * The flattened form Debezium's ExtractNewRecordState makes with {@code
   * delete.handling.mode=rewrite}: the row with a field {@code __deleted}, "true" on a delete.
   */
  private static boolean isDeletedFlag(Struct value) {
    Field flag = value.schema().field("__deleted");
    if (flag == null) {
      return false;
    }
    Object v = value.get(flag);
    return Boolean.TRUE.equals(v) || "true".equalsIgnoreCase(String.valueOf(v));
  }

  /** The key of a row about to be written. */
  RowKey keyOf(SinkRecord record, Struct row) {
    List<String> columns = columns(record);
    List<Object> values = new ArrayList<>(columns.size());
    for (String column : columns) {
      Field field = row.schema().field(column);
      if (field == null) {
        throw problem(record, "has no key column '" + column + "' in its row");
      }
      values.add(row.get(field));
    }
    return key(record, columns, values, "row");
  }

  /** A delete's key: from the record key, or from the before state when the key has none. */
  private RowKey keyOfDeleted(SinkRecord record, Struct before) {
    List<String> columns = columns(record);
    Object key = record.key();
    if (key instanceof Struct k && columns.stream().allMatch(c -> k.schema().field(c) != null)) {
      return key(record, columns, columns.stream().map(k::get).toList(), "key");
    }
    if (key instanceof Map<?, ?> m && columns.stream().allMatch(m::containsKey)) {
      return key(record, columns, columns.stream().map(c -> (Object) m.get(c)).toList(), "key");
    }
    if (key != null && !(key instanceof Struct) && !(key instanceof Map) && columns.size() == 1) {
      return key(record, columns, List.of(key), "key");
    }
    if (before != null) {
      return keyOf(record, before);
    }
    throw problem(
        record, "deletes, but neither its key nor a before state holds the key columns " + columns);
  }

  private List<String> columns(SinkRecord record) {
    if (!keyColumns.isEmpty()) {
      return keyColumns;
    }
    Schema keySchema = record.keySchema();
    if (keySchema != null && keySchema.type() == Schema.Type.STRUCT) {
      if (keySchema != lastKeySchema) {
        lastKeyFields = keySchema.fields().stream().map(Field::name).toList();
        lastKeySchema = keySchema;
      }
      return lastKeyFields;
    }
    if (record.key() instanceof Map<?, ?> m && !m.isEmpty()) {
      return m.keySet().stream().map(String::valueOf).sorted().toList();
    }
    throw problem(
        record, "has no Struct key to take the key columns from; set delta.upsert.key.columns");
  }

  private RowKey key(SinkRecord record, List<String> columns, List<Object> values, String where) {
    try {
      return RowKey.of(columns, values);
    } catch (IllegalArgumentException e) {
      throw problem(
          record, "has no usable key " + columns + " in its " + where + ": " + e.getMessage());
    }
  }

  private static boolean isEnvelope(Schema schema) {
    return schema != null
        && schema.type() == Schema.Type.STRUCT
        && schema.field("op") != null
        && schema.field("op").schema().type() == Schema.Type.STRING
        && schema.field("after") != null
        && schema.field("after").schema().type() == Schema.Type.STRUCT
        && schema.field("before") != null;
  }

  private DataException problem(SinkRecord record, String what) {
    return new DataException("Record " + origin.describe(record) + " " + what);
  }
}
