package io.kcdelta.record;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.ColumnMapping;
import io.kcdelta.delta.Metadata;
import io.kcdelta.record.RecordLayout.PartitionSource;
import io.kcdelta.schema.ConnectTypes;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.FileColumns;
import io.kcdelta.schema.GenerationExpression;
import io.kcdelta.schema.GenerationExpression.Transform;
import io.kcdelta.schema.PartitionValues;
import io.kcdelta.schema.SchemaEvolution;
import io.kcdelta.schema.SchemaMappingException;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * What the task knows of one Delta table: its log, its schema and partitioning as last read or
 * committed, and how each Connect record schema maps onto it.
 */
public final class TableState {
  /**
   * Layouts are cached per Connect schema instance. Converters usually reuse instances, but one
   * that builds a new instance per record would grow the cache without bound between rebalances:
   * past this many it starts over (planning a layout again is cheap and gives the same answer).
   */
  static final int MAX_LAYOUTS = 256;

  private final String path;
  private final Path root;
  private final DeltaSinkConfig config;

  /** As last read (null: the table does not exist yet, or the last read was before a commit). */
  private Metadata tableMetadata;

  /** As last read or committed (null: the table does not exist yet). */
  private StructType tableSchema;

  /** Columns every file must have stats for (a clustered table's), by name in files. */
  private Set<String> statsColumns = Set.of();

  private List<String> tablePartitionColumns;

  /**
   * The table schema extended by what the task's rows need: those buffered, and those of a batch in
   * flight, which comes back to the buffer when its commit fails without a verdict.
   */
  private StructType batchSchema;

  /** The partition columns the held rows' files are laid out by. */
  private List<String> partitionColumns;

  private final Map<Schema, RecordLayout> layouts = new IdentityHashMap<>();

  public TableState(String path, DeltaSinkConfig config) {
    this.path = path;
    this.root = new Path(path);
    this.config = config;
    this.tablePartitionColumns = config.partitionColumns();
    this.partitionColumns = tablePartitionColumns;
  }

  public String path() {
    return path;
  }

  public Path root() {
    return root;
  }

  /**
   * Takes the table's schema and partitioning as of {@code metadata} (null: no table yet). While
   * the task holds rows of the table, buffered or in a batch in flight, their files keep the layout
   * they were written with: a batch in flight may come back to the buffer (a commit without a
   * verdict) and must be committed again with its schema. Forgetting it there lost a batch's rows,
   * or killed the task, when a partition of the table was opened meanwhile (issue 35).
   */
  public void refresh(Metadata metadata, Set<String> statsColumns, boolean nothingHeld) {
    tableMetadata = metadata;
    this.statsColumns = statsColumns;
    if (metadata == null || metadata.schema() == null) {
      tableSchema = null;
      tablePartitionColumns = config.partitionColumns();
    } else {
      tableSchema = metadata.schema();
      tablePartitionColumns = metadata.partitionColumns();
    }
    if (nothingHeld) {
      batchDropped();
    }
  }

  /** The task holds no rows of the table any more: the next rows start from the table's schema. */
  public void batchDropped() {
    batchSchema = tableSchema;
    partitionColumns = tablePartitionColumns;
    layouts.clear();
  }

  /** A batch is in the table: its schema and partitioning are the table's now. */
  public void committed(StructType schema, List<String> partitionColumns) {
    if (schema != null) {
      tableSchema = schema;
      tablePartitionColumns = partitionColumns;
    }
  }

  public StructType batchSchema() {
    return batchSchema;
  }

  public List<String> partitionColumns() {
    return partitionColumns;
  }

  /**
   * Checks that records of this schema fit the table, without touching any file. Throws a {@link
   * org.apache.kafka.connect.errors.DataException} naming what to fix when they do not.
   */
  public RecordLayout layoutFor(Schema valueSchema) {
    RecordLayout layout = layouts.get(valueSchema);
    if (layout == null) {
      layout = planLayout(valueSchema);
      if (layouts.size() >= MAX_LAYOUTS) {
        layouts.clear();
      }
      layouts.put(valueSchema, layout);
    }
    return layout;
  }

  public int cachedLayouts() {
    return layouts.size();
  }

  private RecordLayout planLayout(Schema valueSchema) {
    if (tableSchema == null && !config.autoCreate()) {
      throw new ConnectException(
          "Delta table "
              + path
              + " does not exist and "
              + DeltaSinkConfig.AUTO_CREATE
              + "=false. Create the table or set "
              + DeltaSinkConfig.AUTO_CREATE
              + "=true.");
    }
    StructType incoming = DeltaSchemas.toDelta(valueSchema);
    StructType evolved =
        batchSchema == null
            ? incoming
            : SchemaEvolution.evolve(
                batchSchema, incoming, config.schemaEvolution(), widensColumns());
    if (tableSchema == null) {
      evolved = withTransforms(evolved, valueSchema);
    }
    boolean mapped = mapsColumns();
    if (mapped) {
      // Added columns get their physical names and ids now: the files are written with them.
      evolved =
          tableMetadata == null
              ? ColumnMapping.withMapping(evolved, NEW_TABLE_SEED, 0)
              : ColumnMapping.withMapping(
                  evolved, tableMetadata.id(), ColumnMapping.maxColumnId(tableMetadata));
    }
    List<PartitionSource> partitions = new ArrayList<>(partitionColumns.size());
    for (String column : partitionColumns) {
      partitions.add(partitionSource(column, evolved, valueSchema));
    }
    batchSchema = evolved;
    return new RecordLayout(
        valueSchema,
        partitions,
        Set.copyOf(partitionColumns),
        new FileColumns(evolved, mapped, statsColumns));
  }

  /**
   * Where a partition column takes its value: the record's field of that name, or, for a generated
   * column, its expression of the field it reads.
   */
  private PartitionSource partitionSource(String column, StructType schema, Schema valueSchema) {
    StructField tableField = schema.field(column);
    Object sql =
        tableField == null ? null : tableField.metadata().get(GenerationExpression.METADATA_KEY);
    Field own = valueSchema.field(column);
    if (sql == null) {
      if (own == null) {
        throw new SchemaMappingException(
            "The record has no field '"
                + column
                + "', a partition column of "
                + path
                + " ("
                + DeltaSinkConfig.PARTITION_COLUMNS
                + "="
                + String.join(",", partitionColumns)
                + "). Records must carry every partition column as a top-level field.");
      }
      PartitionValues.checkPartitionable(column, own.schema());
      return new PartitionSource(column, own, null, null);
    }
    String generated = "Partition column '" + column + "' of " + path + " is generated as " + sql;
    GenerationExpression expression = GenerationExpression.parse(sql.toString());
    if (expression == null) {
      throw new SchemaMappingException(generated + ", which this connector cannot compute");
    }
    Field source = valueSchema.field(expression.source());
    if (source == null || !expression.accepts(source.schema())) {
      throw new SchemaMappingException(
          generated
              + ": records must carry '"
              + expression.source()
              + "' as a top-level "
              + (source == null
                  ? "field"
                  : "field of a type it reads, not " + ConnectTypes.of(source.schema())));
    }
    if (own != null) {
      PartitionValues.checkPartitionable(column, own.schema());
    }
    return new PartitionSource(column, source, expression, own);
  }

  /**
   * A new table's schema with the generated columns of the config's partition transforms (a column
   * the record carries itself becomes generated too: its values must then be the computed ones).
   */
  private StructType withTransforms(StructType schema, Schema valueSchema) {
    Map<String, Transform> transforms = config.partitionTransforms();
    if (transforms.isEmpty()) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>(schema.fields());
    for (Transform t : transforms.values()) {
      Field source = valueSchema.field(t.field());
      StructField sourceColumn = schema.field(t.field());
      if (source == null || sourceColumn == null) {
        throw new SchemaMappingException(
            "The record has no field '"
                + t.field()
                + "', which partition column '"
                + t.column()
                + "' ("
                + DeltaSinkConfig.PARTITION_COLUMNS
                + ") is computed from");
      }
      GenerationExpression expression =
          GenerationExpression.ofTransform(
              t, ConnectTypes.of(source.schema()) == ConnectTypes.STRING);
      DeltaType type = expression.resultType(sourceColumn.type());
      if (type == null || !expression.accepts(source.schema())) {
        throw new SchemaMappingException(
            "Partition column '"
                + t.column()
                + "' is "
                + t.name()
                + "("
                + t.field()
                + "), but '"
                + t.field()
                + "' is "
                + ConnectTypes.of(source.schema())
                + ": "
                + (t.name().equals("truncate")
                    ? "truncate takes a string or an integer"
                    : t.name() + " takes a Timestamp or Date"));
      }
      StructField generated =
          new StructField(
              t.column(), type, true, Map.of(GenerationExpression.METADATA_KEY, expression.sql()));
      int at = fields.indexOf(schema.field(t.column()));
      if (at >= 0) {
        if (!fields.get(at).type().equals(type)) {
          throw new SchemaMappingException(
              "The record's field '"
                  + t.column()
                  + "' is "
                  + fields.get(at).type().simpleString()
                  + " but partition column '"
                  + t.column()
                  + "' is "
                  + expression.sql()
                  + ", a "
                  + type.simpleString()
                  + ": rename the one or the other");
        }
        fields.set(at, generated);
      } else {
        fields.add(generated);
      }
    }
    return new StructType(fields);
  }

  /** The seed of the physical names of a new column-mapped table's columns. */
  private static final String NEW_TABLE_SEED = "new table";

  /**
   * The table's properties: its own, or for a table the connector is to create, those the config
   * gives it.
   */
  private String property(String key) {
    return tableMetadata != null ? tableMetadata.property(key) : config.tableProperties().get(key);
  }

  /** Whether data files use physical names and field ids (column mapping in name or id mode). */
  public boolean mapsColumns() {
    String mode = property(ColumnMapping.MODE);
    return mode != null && !mode.trim().equalsIgnoreCase("none");
  }

  private boolean widensColumns() {
    return "true".equalsIgnoreCase(property("delta.enableTypeWidening"));
  }
}
