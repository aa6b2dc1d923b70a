package io.kcdelta.parquet;

import java.util.List;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes the fields of a Struct; as a nested value wrapped in a group, at the top level as the
 * record.
 */
final class StructWriter implements ValueWriter {
  private final String column;
  private final Schema schema;

  /**
   * Connect fields written, with their Parquet names and positions (excluded fields are skipped).
   */
  private final Field[] fields;

  private final String[] names;
  private final String[] columns;
  private final ValueWriter[] writers;
  private final boolean[] optional;
  private final ColumnStats[] stats;

  /**
   * A Struct schema already found to match, so the check is an identity test after the first
   * record.
   */
  private Schema accepted;

  StructWriter(
      String column,
      Schema schema,
      List<Field> fields,
      List<ValueWriter> writers,
      List<ColumnStats> stats) {
    this.column = column;
    this.schema = schema;
    this.fields = fields.toArray(new Field[0]);
    this.names = new String[this.fields.length];
    this.optional = new boolean[this.fields.length];
    this.columns = new String[this.fields.length];
    for (int i = 0; i < this.fields.length; i++) {
      names[i] = this.fields[i].name();
      optional[i] = this.fields[i].schema().isOptional();
      columns[i] = column.isEmpty() ? names[i] : column + "." + names[i];
    }
    this.writers = writers.toArray(new ValueWriter[0]);
    this.stats = stats.toArray(new ColumnStats[0]);
    this.accepted = schema;
  }

  @Override
  public void check(Object value) {
    if (!(value instanceof Struct)) {
      throw ValueErrors.wrongClass(column.isEmpty() ? "<record>" : column, "Struct", value);
    }
    Struct struct = (Struct) value;
    if (struct.schema() != accepted) {
      checkLayout(struct.schema());
      accepted = struct.schema();
    }
    for (int i = 0; i < fields.length; i++) {
      Object v = struct.get(fields[i]);
      if (v == null) {
        if (!optional[i]) {
          throw ValueErrors.requiredNull(columns[i]);
        }
      } else {
        writers[i].check(v);
      }
    }
  }

  /**
   * Field positions are what {@code Struct.get(Field)} relies on; the types are checked value by
   * value.
   */
  private void checkLayout(Schema other) {
    List<Field> theirs = other.type() == Schema.Type.STRUCT ? other.fields() : List.of();
    boolean same = theirs.size() == schema.fields().size();
    for (int i = 0; same && i < theirs.size(); i++) {
      same = theirs.get(i).name().equals(schema.fields().get(i).name());
    }
    if (!same) {
      throw new DataException(
          (column.isEmpty() ? "The record" : "Column '" + column + "'")
              + " has a struct schema with fields "
              + names(theirs)
              + " where this file was opened for "
              + names(schema.fields()));
    }
  }

  private static String names(List<Field> fields) {
    return fields.stream().map(Field::name).toList().toString();
  }

  @Override
  public void write(RecordConsumer out, Object value) {
    out.startGroup();
    writeFields(out, (Struct) value);
    out.endGroup();
  }

  /** The fields of a checked Struct, without a group around them (the top-level record). */
  void writeFields(RecordConsumer out, Struct struct) {
    for (int i = 0; i < fields.length; i++) {
      Object v = struct.get(fields[i]);
      if (v == null) {
        if (stats[i] != null) {
          stats[i].addNull();
        }
        continue;
      }
      out.startField(names[i], i);
      writers[i].write(out, v);
      out.endField(names[i], i);
    }
  }
}
