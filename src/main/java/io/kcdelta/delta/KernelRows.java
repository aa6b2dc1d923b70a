package io.kcdelta.delta;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kernel's rows of log actions as the JSON values our action model reads ({@code AddFile.fromJson}
 * and the like), so that an action read through Kernel (from a checkpoint, a scan) and one read
 * from a commit file become the same object.
 */
final class KernelRows {
  private KernelRows() {}

  static Map<String, Object> toJson(Row row) {
    Map<String, Object> out = new LinkedHashMap<>();
    StructType schema = row.getSchema();
    for (int i = 0; i < schema.length(); i++) {
      StructField f = schema.at(i);
      if (!row.isNullAt(i)) {
        out.put(f.getName(), value(row, i, f.getDataType()));
      }
    }
    return out;
  }

  private static Object value(Row row, int i, DataType type) {
    if (type instanceof StringType) {
      return row.getString(i);
    } else if (type instanceof LongType) {
      return row.getLong(i);
    } else if (type instanceof IntegerType) {
      return (long) row.getInt(i);
    } else if (type instanceof BooleanType) {
      return row.getBoolean(i);
    } else if (type instanceof StructType) {
      return toJson(row.getStruct(i));
    } else if (type instanceof MapType m) {
      return map(row.getMap(i), m);
    } else if (type instanceof ArrayType a) {
      return list(row.getArray(i), a);
    }
    throw new IllegalArgumentException("No JSON form for a log field of type " + type);
  }

  private static Map<String, Object> map(MapValue value, MapType type) {
    Map<String, Object> out = new LinkedHashMap<>();
    ColumnVector keys = value.getKeys();
    ColumnVector values = value.getValues();
    for (int r = 0; r < value.getSize(); r++) {
      out.put(
          String.valueOf(element(keys, r, type.getKeyType())),
          element(values, r, type.getValueType()));
    }
    return out;
  }

  private static List<Object> list(ArrayValue value, ArrayType type) {
    List<Object> out = new ArrayList<>();
    for (int r = 0; r < value.getSize(); r++) {
      out.add(element(value.getElements(), r, type.getElementType()));
    }
    return out;
  }

  private static Object element(ColumnVector v, int r, DataType type) {
    if (v.isNullAt(r)) {
      return null;
    }
    if (type instanceof StringType) {
      return v.getString(r);
    } else if (type instanceof LongType) {
      return v.getLong(r);
    } else if (type instanceof IntegerType) {
      return (long) v.getInt(r);
    } else if (type instanceof BooleanType) {
      return v.getBoolean(r);
    }
    throw new IllegalArgumentException("No JSON form for a log map/array element of type " + type);
  }
}
