package io.kcdelta.record;

import io.kcdelta.config.DeltaSinkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.data.Values;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The columns a record brings besides its value's fields, as configured: its Kafka metadata in one
 * struct column, its key, the UTC date of its timestamp. A row is the value's fields followed by
 * these, so partitioning, schema evolution and the Parquet writer see one ordinary Struct.
 *
 * <p>Every added column is nullable: a table keeps its columns when the settings change, and rows
 * written without them must still fit.
 */
public final class RecordColumns {
  private static final long DAY_MS = 86_400_000L;

  static final Schema HEADER =
      SchemaBuilder.struct()
          .field("key", Schema.OPTIONAL_STRING_SCHEMA)
          .field("value", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  private static final Schema DATE = Date.builder().optional().build();

  private final RecordOrigin origin;
  private final List<String> metadataFields;
  private final String metadataColumn;
  private final Schema metadataSchema;
  private final String keyColumn;
  private final String dateColumn;

  /** Added column name, lower case (Delta ignores case) → the setting that adds it. */
  private final Map<String, String> added = new HashMap<>();

  /** Row shapes by (value schema, key schema) instance: converters reuse their schemas. */
  private final Map<SchemaPair, Shape> shapes = new HashMap<>();

  private static final int MAX_SHAPES = 256;

  private SchemaPair lastPair;
  private Shape lastShape;

  private RecordColumns(DeltaSinkConfig config, RecordOrigin origin) {
    this.origin = origin;
    this.metadataFields =
        DeltaSinkConfig.METADATA_FIELDS.stream().filter(config.metadataFields()::contains).toList();
    this.metadataColumn = metadataFields.isEmpty() ? null : config.metadataColumn();
    this.metadataSchema = metadataFields.isEmpty() ? null : metadataSchema(metadataFields);
    this.keyColumn = config.keyColumn();
    this.dateColumn = config.timestampDateColumn();
    addName(metadataColumn, DeltaSinkConfig.METADATA_COLUMN);
    addName(keyColumn, DeltaSinkConfig.KEY_COLUMN);
    addName(dateColumn, DeltaSinkConfig.TIMESTAMP_DATE_COLUMN);
  }

  /** The configured columns; null when none is configured (rows are the values as they are). */
  public static RecordColumns of(DeltaSinkConfig config, RecordOrigin origin) {
    RecordColumns columns = new RecordColumns(config, origin);
    return columns.added.isEmpty() ? null : columns;
  }

  /** The added columns' names, lower case. */
  public Set<String> names() {
    return Set.copyOf(added.keySet());
  }

  private void addName(String column, String setting) {
    if (column != null) {
      added.put(column.toLowerCase(Locale.ROOT), setting);
    }
  }

  /**
   * The row for the record: its value's fields and the added columns.
   *
   * @throws DataException when a field of the value has the name of an added column
   */
  public Struct row(SinkRecord record, Struct value) {
    Shape shape = shapeFor(value.schema(), keyColumn == null ? null : record.keySchema());
    Struct row = new Struct(shape.schema);
    List<Field> valueFields = value.schema().fields();
    List<Field> rowFields = shape.schema.fields();
    for (int i = 0; i < valueFields.size(); i++) {
      row.put(rowFields.get(i), value.get(valueFields.get(i)));
    }
    int next = valueFields.size();
    if (metadataSchema != null) {
      row.put(rowFields.get(next++), metadata(record));
    }
    if (keyColumn != null) {
      row.put(rowFields.get(next++), shape.key(record.key()));
    }
    if (dateColumn != null) {
      Long ts = record.timestamp();
      row.put(rowFields.get(next), ts == null ? null : new java.util.Date(day(ts)));
    }
    return row;
  }

  private static long day(long epochMs) {
    return Math.floorDiv(epochMs, DAY_MS) * DAY_MS;
  }

  private Struct metadata(SinkRecord record) {
    Struct m = new Struct(metadataSchema);
    TopicPartition tp = origin.partition(record);
    for (String field : metadataFields) {
      switch (field) {
        case "topic" -> m.put("topic", tp.topic());
        case "partition" -> m.put("partition", tp.partition());
        case "offset" -> m.put("offset", origin.offset(record));
        case "timestamp" ->
            m.put(
                "timestamp",
                record.timestamp() == null ? null : new java.util.Date(record.timestamp()));
        case "timestamp.type" ->
            m.put(
                "timestamp_type",
                record.timestampType() == null ? null : record.timestampType().name);
        case "headers" -> m.put("headers", headers(record));
        default -> throw new IllegalStateException("unknown metadata field " + field);
      }
    }
    return m;
  }

  private static List<Struct> headers(SinkRecord record) {
    List<Struct> out = new ArrayList<>();
    for (Header h : record.headers()) {
      Object v = h.value();
      out.add(
          new Struct(HEADER)
              .put("key", h.key())
              .put("value", v == null ? null : Values.convertToString(h.schema(), v)));
    }
    return out;
  }

  private static Schema metadataSchema(List<String> fields) {
    SchemaBuilder b = SchemaBuilder.struct().optional();
    for (String field : fields) {
      switch (field) {
        case "topic" -> b.field("topic", Schema.OPTIONAL_STRING_SCHEMA);
        case "partition" -> b.field("partition", Schema.OPTIONAL_INT32_SCHEMA);
        case "offset" -> b.field("offset", Schema.OPTIONAL_INT64_SCHEMA);
        case "timestamp" -> b.field("timestamp", Timestamp.builder().optional().build());
        case "timestamp.type" -> b.field("timestamp_type", Schema.OPTIONAL_STRING_SCHEMA);
        case "headers" -> b.field("headers", SchemaBuilder.array(HEADER).optional().build());
        default -> throw new IllegalStateException("unknown metadata field " + field);
      }
    }
    return b.build();
  }

  private Shape shapeFor(Schema valueSchema, Schema keySchema) {
    SchemaPair pair = new SchemaPair(valueSchema, keySchema);
    if (pair.equals(lastPair)) {
      return lastShape;
    }
    Shape shape = shapes.get(pair);
    if (shape == null) {
      if (shapes.size() >= MAX_SHAPES) {
        // A converter or SMT that makes a new schema per record: do not hold them all.
        shapes.clear();
      }
      shape = shape(valueSchema, keySchema);
      shapes.put(pair, shape);
    }
    lastPair = pair;
    lastShape = shape;
    return shape;
  }

  private Shape shape(Schema valueSchema, Schema keySchema) {
    SchemaBuilder b =
        SchemaBuilder.struct().name(valueSchema.name()).version(valueSchema.version());
    for (Field f : valueSchema.fields()) {
      String setting = added.get(f.name().toLowerCase(Locale.ROOT));
      if (setting != null) {
        throw new DataException(
            "its value has a field '"
                + f.name()
                + "', the name of the column that "
                + setting
                + " adds. Set "
                + setting
                + " to another name, or rename the field (e.g. with the ReplaceField SMT).");
      }
      b.field(f.name(), f.schema());
    }
    if (metadataSchema != null) {
      b.field(metadataColumn, metadataSchema);
    }
    KeyColumn key = null;
    if (keyColumn != null) {
      key = KeyColumn.of(keySchema);
      b.field(keyColumn, key.schema);
    }
    if (dateColumn != null) {
      b.field(dateColumn, DATE);
    }
    return new Shape(b.build(), key);
  }

  /** The row schema for one pair of value and key schemas, and how its key is written. */
  private record Shape(Schema schema, KeyColumn keyColumn) {
    Object key(Object key) {
      return keyColumn.value(key);
    }
  }

  /** The key column's schema (the key's, made nullable), and the key's value in it. */
  private record KeyColumn(Schema schema, Schema keySchema) {
    static KeyColumn of(Schema keySchema) {
      return new KeyColumn(
          keySchema == null ? Schema.OPTIONAL_STRING_SCHEMA : nullable(keySchema), keySchema);
    }

    Object value(Object key) {
      if (key == null) {
        return null;
      }
      if (keySchema == null) {
        // No schema (e.g. JsonConverter with schemas.enable=false): the key's string form.
        return key instanceof String s ? s : Values.convertToString(null, key);
      }
      if (schema != keySchema && key instanceof Struct struct) {
        // The struct must carry the column's (nullable) schema to be put into the row.
        Struct copy = new Struct(schema);
        for (Field f : keySchema.fields()) {
          copy.put(f.name(), struct.get(f));
        }
        return copy;
      }
      return key;
    }

    private static Schema nullable(Schema s) {
      if (s.isOptional()) {
        return s;
      }
      SchemaBuilder b =
          switch (s.type()) {
            case STRUCT -> {
              SchemaBuilder struct = SchemaBuilder.struct();
              s.fields().forEach(f -> struct.field(f.name(), f.schema()));
              yield struct;
            }
            case ARRAY -> SchemaBuilder.array(s.valueSchema());
            case MAP -> SchemaBuilder.map(s.keySchema(), s.valueSchema());
            default -> new SchemaBuilder(s.type());
          };
      b.name(s.name()).version(s.version()).doc(s.doc());
      if (s.parameters() != null) {
        b.parameters(s.parameters());
      }
      return b.optional().build();
    }
  }

  /** A pair of schemas compared by instance. */
  private record SchemaPair(Schema value, Schema key) {
    @Override
    public boolean equals(Object o) {
      return o instanceof SchemaPair p && p.value == value && p.key == key;
    }

    @Override
    public int hashCode() {
      return 31 * System.identityHashCode(value) + System.identityHashCode(key);
    }
  }
}
