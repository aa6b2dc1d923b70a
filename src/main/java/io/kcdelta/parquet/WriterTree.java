package io.kcdelta.parquet;

import io.kcdelta.schema.ConnectTypes;
import io.kcdelta.schema.SchemaMappingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
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

  /** Top-level columns (by name in the file) that get stats beyond the budget. */
  private final Set<String> alwaysStats;

  private WriterTree(Set<String> alwaysStats) {
    this.alwaysStats = alwaysStats;
  }

  /**
   * The root's stats are filled into {@code rootStats}.
   *
   * @param alwaysStats top-level columns that get stats wherever they are (clustering columns)
   */
  static StructWriter build(
      Schema valueSchema,
      MessageType parquet,
      Set<String> excluded,
      StructStats rootStats,
      Set<String> alwaysStats) {
    return new WriterTree(alwaysStats).struct("", valueSchema, parquet, excluded, rootStats);
  }

  private StructWriter struct(
      String path, Schema schema, GroupType group, Set<String> excluded, StructStats statsOrNull) {
    List<Field> fields = new ArrayList<>();
    List<ValueWriter> writers = new ArrayList<>();
    List<ColumnStats> stats = new ArrayList<>();
    // The group holds the record's fields in their order (partition columns left out), under the
    // names the table gives them in files: physical names where it maps columns.
    int index = 0;
    for (Field f : schema.fields()) {
      if (excluded.contains(f.name())) {
        continue;
      }
      String column = path.isEmpty() ? f.name() : path + "." + f.name();
      Type type = group.getType(index++);
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
          st = statsOrNull == null ? null : nullsOnly();
          w = nested(column, f.schema(), type);
          break;
        default:
          boolean always = path.isEmpty() && alwaysStats.contains(type.getName());
          st = statsOrNull == null ? null : leafStats(type, always);
          w = leaf(column, f.schema(), type, st);
      }
      if (st != null) {
        statsOrNull.add(type.getName(), st);
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

  private ColumnStats nullsOnly() {
    if (statsBudget == 0) {
      return null;
    }
    statsBudget--;
    return new ColumnStats.NullsOnly();
  }

  /**
   * Stats of a leaf by its type in the file, which is its column's (maybe wider than the value).
   */
  private ColumnStats leafStats(Type type, boolean always) {
    if (statsBudget == 0 && !always) {
      return null;
    }
    statsBudget = Math.max(0, statsBudget - 1);
    org.apache.parquet.schema.PrimitiveType p = type.asPrimitiveType();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
      return new DecimalStats();
    }
    if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
      return new StringStats();
    }
    if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      return new LongStats(LongStats.Format.DATE_DAYS);
    }
    if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
      return new LongStats(
          t.isAdjustedToUTC()
              ? LongStats.Format.TIMESTAMP_MICROS
              : LongStats.Format.TIMESTAMP_NTZ_MICROS);
    }
    switch (p.getPrimitiveTypeName()) {
      case INT32:
      case INT64:
        return new LongStats(LongStats.Format.NUMBER);
      case FLOAT:
        return new DoubleStats(true);
      case DOUBLE:
        return new DoubleStats(false);
      default:
        return new ColumnStats.NullsOnly();
    }
  }

  private static ValueWriter leaf(String column, Schema schema, Type type, ColumnStats stats) {
    PrimitiveTypeName stored = type.asPrimitiveType().getPrimitiveTypeName();
    switch (ConnectTypes.of(schema)) {
      case INT8:
        return integer(column, Byte.class, stored, stats);
      case INT16:
        return integer(column, Short.class, stored, stats);
      case INT32:
        return integer(column, Integer.class, stored, stats);
      case INT64:
        return new PrimitiveWriters.LongWriter(column, (LongStats) stats);
      case FLOAT32:
        return stored == PrimitiveTypeName.DOUBLE
            ? new PrimitiveWriters.FloatAsDoubleWriter(column, (DoubleStats) stats)
            : new PrimitiveWriters.FloatWriter(column, (DoubleStats) stats);
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

  /** An integer field, written as its column's type: INT32, or widened to INT64 or DOUBLE. */
  private static ValueWriter integer(
      String column, Class<? extends Number> type, PrimitiveTypeName stored, ColumnStats stats) {
    switch (stored) {
      case INT64:
        return new PrimitiveWriters.IntAsLongWriter(column, type, (LongStats) stats);
      case DOUBLE:
        return new PrimitiveWriters.IntAsDoubleWriter(column, type, (DoubleStats) stats);
      default:
        return new PrimitiveWriters.IntWriter(column, type, (LongStats) stats);
    }
  }
}
