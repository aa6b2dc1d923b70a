package io.kcdelta.record;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.schema.JsonParser;
import io.kcdelta.schema.SchemalessJson;
import io.kcdelta.schema.SchemalessJson.UnknownFields;
import io.kcdelta.schema.StructType;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Rows from schemaless records (a {@code Map} value without a Connect schema, as JsonConverter
 * gives with {@code schemas.enable=false}, or JSON text), written by the table's schema: the
 * table's columns as of the buffered batch, or, for a table that does not exist yet, a schema
 * inferred from all the records of the first batch (so 1 and 1.5 in one field make a double column,
 * and a field that is null throughout waits for a value).
 */
public final class SchemalessRows {
  private final UnknownFields unknown;

  /** Added columns (metadata, key, date; lower case): not the value's to fill. */
  private final Set<String> reserved;

  /** The Connect form of each table schema met, by instance (schemas are replaced, not changed). */
  private final Map<StructType, Schema> targets = new IdentityHashMap<>();

  /** Per table without a schema yet: what the current put() batch's records need. */
  private final Map<TableState, Schema> seeds = new IdentityHashMap<>();

  /** A target extended by new columns, by target instance and the new columns' names and types. */
  private final Map<Schema, Map<Map<String, Schema>, Schema>> extended = new IdentityHashMap<>();

  private static final int MAX_CACHED = 256;

  public SchemalessRows(DeltaSinkConfig config, Set<String> reserved) {
    this.unknown = config.schemalessUnknownFields();
    this.reserved = reserved;
  }

  /** JSON text values of the current put() batch already parsed (by the inference pre-pass). */
  private final Map<SinkRecord, Map<?, ?>> parsed = new IdentityHashMap<>();

  /**
   * A JSON object without a schema: a Map (JsonConverter, schemas.enable=false) or JSON text
   * (StringConverter, or a string value without schema).
   */
  public static boolean isSchemaless(SinkRecord record) {
    Object value = record.value();
    Schema schema = record.valueSchema();
    return (value instanceof Map && schema == null)
        || (value instanceof String && (schema == null || schema.type() == Schema.Type.STRING));
  }

  private Map<?, ?> jsonOf(SinkRecord record) {
    if (record.value() instanceof Map<?, ?> m) {
      return m;
    }
    Map<?, ?> done = parsed.get(record);
    if (done != null) {
      return done;
    }
    Object json;
    try {
      json = JsonParser.parse((String) record.value());
    } catch (DataException e) {
      throw new DataException(
          "its value is a string, read as a JSON object, but is " + e.getMessage(), e);
    }
    if (json instanceof Map<?, ?> m) {
      return m;
    }
    throw new DataException(
        "its value is JSON text but not a JSON object ("
            + (json == null ? "null" : json.getClass().getSimpleName())
            + "); each record must be one object, one column per key");
  }

  /**
   * Before a put() batch: for each table without a schema yet, infers one from all of the batch's
   * schemaless records for it.
   */
  public void inferNewTables(
      Collection<SinkRecord> records, Function<SinkRecord, TableState> tableOf) {
    seeds.clear();
    parsed.clear();
    for (SinkRecord r : records) {
      if (!isSchemaless(r)) {
        continue;
      }
      TableState table = tableOf.apply(r);
      if (table == null || table.batchSchema() != null) {
        continue;
      }
      Map<?, ?> json;
      try {
        json = jsonOf(r);
      } catch (DataException e) {
        continue; // errant when its turn comes
      }
      if (r.value() instanceof String) {
        parsed.put(r, json);
      }
      Schema inferred = inferTopLevel(json);
      if (inferred != null) {
        seeds.merge(table, inferred, SchemalessJson::widen);
      }
    }
  }

  /**
   * The record's row, by the table's columns.
   *
   * @throws DataException naming the key, value and column type that do not fit
   */
  public Struct row(SinkRecord record, TableState table) {
    Map<?, ?> json = jsonOf(record);
    Schema target = targetFor(table, json);
    Struct row = SchemalessJson.struct(json, target, "");
    if (!SchemalessJson.hasUnknownKeys(json, row)) {
      return row;
    }
    Schema widened = withUnknownKeys(json, target, SchemalessJson.unknownKeys(json, target), table);
    return widened == target ? row : SchemalessJson.struct(json, widened, "");
  }

  private Schema targetFor(TableState table, Map<?, ?> json) {
    StructType columns = table.batchSchema();
    if (columns != null) {
      seeds.remove(table);
      Schema target = targets.get(columns);
      if (target == null) {
        if (targets.size() >= MAX_CACHED) {
          targets.clear();
        }
        target = withoutReserved(SchemalessJson.connectSchemaOf(columns));
        targets.put(columns, target);
      }
      return target;
    }
    Schema seed = seeds.get(table);
    if (seed == null) {
      seed = inferTopLevel(json);
    }
    if (seed == null) {
      throw new DataException(
          "the table does not exist yet and the record has no non-null value to make a column of");
    }
    return seed;
  }

  private Schema inferTopLevel(Map<?, ?> json) {
    Map<String, Schema> fields = new LinkedHashMap<>();
    json.forEach(
        (k, v) -> {
          String key = String.valueOf(k);
          Schema s =
              reserved.contains(key.toLowerCase(Locale.ROOT)) ? null : SchemalessJson.infer(v);
          if (s != null) {
            fields.put(key, s);
          }
        });
    return fields.isEmpty() ? null : SchemalessJson.struct(fields);
  }

  private Schema withoutReserved(Schema schema) {
    if (reserved.isEmpty()) {
      return schema;
    }
    SchemaBuilder b = SchemaBuilder.struct();
    for (Field f : schema.fields()) {
      if (!reserved.contains(f.name().toLowerCase(Locale.ROOT))) {
        b.field(f.name(), f.schema());
      }
    }
    return b.build();
  }

  private Schema withUnknownKeys(
      Map<?, ?> json, Schema target, List<String> keys, TableState table) {
    for (String key : keys) {
      if (reserved.contains(key.toLowerCase(Locale.ROOT))) {
        throw new DataException(
            "its key '"
                + key
                + "' is the name of a column the connector adds (Kafka metadata, key or date"
                + " column): rename that column's setting, or drop the key upstream");
      }
    }
    Map<String, String> clashes = SchemalessJson.caseOnlyClashes(keys, target);
    if (!clashes.isEmpty()) {
      Map.Entry<String, String> c = clashes.entrySet().iterator().next();
      throw new DataException(
          "its key '"
              + c.getKey()
              + "' differs from the column '"
              + c.getValue()
              + "' only in case; Delta column names are case-insensitive: use the column's name");
    }
    switch (unknown) {
      case IGNORE:
        return target;
      case FAIL:
        throw new DataException(
            "its key '"
                + keys.get(0)
                + "' is not a column of "
                + table.path()
                + " and "
                + DeltaSinkConfig.SCHEMALESS_UNKNOWN_FIELDS
                + "=fail; set it to 'ignore' to drop such keys or 'add-columns' to add them");
      default:
        Map<String, Schema> added = new LinkedHashMap<>();
        for (String key : keys) {
          Schema s = SchemalessJson.infer(json.get(key));
          if (s != null) {
            added.put(key, s);
          }
        }
        return added.isEmpty() ? target : extend(target, added);
    }
  }

  private Schema extend(Schema target, Map<String, Schema> added) {
    if (extended.size() >= MAX_CACHED) {
      extended.clear();
    }
    Map<Map<String, Schema>, Schema> byAdded =
        extended.computeIfAbsent(target, t -> new java.util.HashMap<>());
    Schema schema = byAdded.get(added);
    if (schema == null) {
      if (byAdded.size() >= MAX_CACHED) {
        byAdded.clear();
      }
      SchemaBuilder b = SchemaBuilder.struct();
      target.fields().forEach(f -> b.field(f.name(), f.schema()));
      added.forEach(b::field);
      schema = b.build();
      byAdded.put(added, schema);
    }
    return schema;
  }
}
