package io.kcdelta.parquet;

import io.kcdelta.schema.ConnectTypes;
import io.kcdelta.schema.SchemaMappingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Builds, once per schema, the writers of a record and the stats collectors of its first {@link
 * #MAX_STATS_COLUMNS} leaf columns (Delta's default dataSkippingNumIndexedCols), depth first. The
 * Parquet schema decides the physical layout (e.g. a decimal's byte length), the Connect schema the
 * values.
 */
final class WriterTree {
  static final int MAX_STATS_COLUMNS = 32;

  private int statsBudget = MAX_STATS_COLUMNS;

  private WriterTree() {}

  /** The root's stats are filled into {@code rootStats}. */
  static StructWriter build(
      Schema valueSchema, MessageType parquet, Set<String> excluded, StructStats rootStats) {
    return new WriterTree().struct("", valueSchema, parquet, excluded, rootStats);
  }

  private StructWriter struct(
      String path, Schema schema, GroupType group, Set<String> excluded, StructStats statsOrNull) {
    List<Field> fields = new ArrayList<>();
    List<ValueWriter> writers = new ArrayList<>();
    List<ColumnStats> stats = new ArrayList<>();
    for (Field f : schema.fields()) {
      if (excluded.contains(f.name())) {
        continue;
      }
      String column = path.isEmpty() ? f.name() : path + "." + f.name();
      Type type = group.getType(f.name());
      ColumnStats st;
      ValueWriter w;
      switch (ConnectTypes.of(f.schema())) {
        case STRUCT:
          {
            StructStats nested = statsOrNull == null ? null : new StructStats();
            w = struct(column, f.schema(), type.asGroupType(), Set.of(), nested);
            st = nested == null || nested.isEmpty() ? null : nested;
            break;
          }
        case ARRAY:
        case MAP:
          st = statsOrNull == null ? null : leafStats(ConnectTypes.of(f.schema()));
          w = nested(column, f.schema(), type);
          break;
        default:
          st = statsOrNull == null ? null : leafStats(ConnectTypes.of(f.schema()));
          w = leaf(column, f.schema(), type, st);
      }
      if (st != null) {
        statsOrNull.add(f.name(), st);
      }
      fields.add(f);
      writers.add(w);
      stats.add(st);
    }
    return new StructWriter(path, schema, fields, writers, stats);
  }

  /** Values inside arrays and maps: no stats (Delta keeps none for them). */
  private ValueWriter nested(String column, Schema schema, Type type) {
    switch (ConnectTypes.of(schema)) {
      case STRUCT:
        return struct(column, schema, type.asGroupType(), Set.of(), null);
      case ARRAY:
        {
          Type element = type.asGroupType().getType(0).asGroupType().getType(0);
          return new ListWriter(
              column,
              schema.valueSchema().isOptional(),
              nested(column + ".element", schema.valueSchema(), element));
        }
      case MAP:
        {
          GroupType keyValue = type.asGroupType().getType(0).asGroupType();
          return new MapWriter(
              column,
              nested(column + ".key", schema.keySchema(), keyValue.getType(0)),
              schema.valueSchema().isOptional(),
              nested(column + ".value", schema.valueSchema(), keyValue.getType(1)));
        }
      default:
        return leaf(column, schema, type, null);
    }
  }

  private ColumnStats leafStats(ConnectTypes kind) {
    if (statsBudget == 0) {
      return null;
    }
    statsBudget--;
    switch (kind) {
      case INT8:
      case INT16:
      case INT32:
      case INT64:
      case TIME:
        return new LongStats(LongStats.Format.NUMBER);
      case DATE:
        return new LongStats(LongStats.Format.DATE_DAYS);
      case TIMESTAMP:
        return new LongStats(LongStats.Format.TIMESTAMP_MICROS);
      case FLOAT32:
        return new DoubleStats(true);
      case FLOAT64:
        return new DoubleStats(false);
      case STRING:
        return new StringStats();
      case DECIMAL:
        return new DecimalStats();
      default:
        return new ColumnStats.NullsOnly();
    }
  }

  private static ValueWriter leaf(String column, Schema schema, Type type, ColumnStats stats) {
    switch (ConnectTypes.of(schema)) {
      case INT8:
        return new PrimitiveWriters.IntWriter(column, Byte.class, (LongStats) stats);
      case INT16:
        return new PrimitiveWriters.IntWriter(column, Short.class, (LongStats) stats);
      case INT32:
        return new PrimitiveWriters.IntWriter(column, Integer.class, (LongStats) stats);
      case INT64:
        return new PrimitiveWriters.LongWriter(column, (LongStats) stats);
      case FLOAT32:
        return new PrimitiveWriters.FloatWriter(column, (DoubleStats) stats);
      case FLOAT64:
        return new PrimitiveWriters.DoubleWriter(column, (DoubleStats) stats);
      case BOOLEAN:
        return new PrimitiveWriters.BooleanWriter(column);
      case STRING:
        return new PrimitiveWriters.StringWriter(column, (StringStats) stats);
      case BYTES:
        return new PrimitiveWriters.BytesWriter(column);
      case DATE:
        return new PrimitiveWriters.DateWriter(column, (LongStats) stats);
      case TIMESTAMP:
        return new PrimitiveWriters.TimestampWriter(column, (LongStats) stats);
      case TIME:
        return new PrimitiveWriters.TimeWriter(column, (LongStats) stats);
      case DECIMAL:
        {
          ConnectTypes.DecimalSpec spec = ConnectTypes.checkedDecimal(column, schema);
          int fixedLength =
              type.asPrimitiveType().getPrimitiveTypeName()
                      == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
                          .FIXED_LEN_BYTE_ARRAY
                  ? type.asPrimitiveType().getTypeLength()
                  : 0;
          return new DecimalWriter(
              column, spec.precision(), spec.scale(), fixedLength, (DecimalStats) stats);
        }
      default:
        throw new SchemaMappingException("Column '" + column + "': no writer for " + schema.type());
    }
  }
}
