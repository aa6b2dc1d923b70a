package io.kcdelta.schema;

import java.util.Set;
import org.apache.kafka.connect.data.Schema;

/**
 * The table's side of a data file: the (batch) schema whose columns the file holds, by which a
 * record's fields are named, numbered and typed in the file. Where the table maps columns (Delta's
 * column mapping, {@code name} or {@code id} mode) a field is stored under its physical name with
 * its column id as Parquet field id; a field narrower than its column (an int into a long column, a
 * float into a double one, a timestamp into a timestamp_ntz one) is written at the column's type.
 *
 * @param mapped whether the table maps columns to physical names and ids
 * @param statsColumns top-level columns (by their names in files) that must have stats whatever
 *     their position: a clustered table's clustering columns
 */
public record FileColumns(StructType schema, boolean mapped, Set<String> statsColumns) {
  public FileColumns {
    statsColumns = Set.copyOf(statsColumns);
  }

  public FileColumns(StructType schema, boolean mapped) {
    this(schema, mapped, Set.of());
  }

  /** Field metadata keys of Delta's column mapping. */
  public static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";

  public static final String ID = "delta.columnMapping.id";

  /** A file of a table without column mapping whose columns are the record's own. */
  public static FileColumns of(Schema valueSchema) {
    return new FileColumns(DeltaSchemas.toDelta(valueSchema), false);
  }

  /** The field's name in the file. */
  String nameOf(StructField field) {
    if (!mapped) {
      return field.name();
    }
    Object physical = field.metadata().get(PHYSICAL_NAME);
    if (physical == null) {
      throw new SchemaMappingException(
          "Column '" + field.name() + "' has no physical name in a column-mapped table");
    }
    return physical.toString();
  }

  /** The field's Parquet field id, or null. */
  Integer idOf(StructField field) {
    return mapped && field.metadata().get(ID) instanceof Number n ? n.intValue() : null;
  }
}
