package io.kcdelta.parquet;

import java.util.Map;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * A Connect map in Parquet's MAP layout: group (MAP) { repeated group key_value { key; value } }.
 */
final class MapWriter implements ValueWriter {
  private static final String KEY_VALUE = "key_value";
  private static final String KEY = "key";
  private static final String VALUE = "value";

  private final String column;
  private final ValueWriter key;
  private final boolean valueOptional;
  private final ValueWriter value;

  MapWriter(String column, ValueWriter key, boolean valueOptional, ValueWriter value) {
    this.column = column;
    this.key = key;
    this.valueOptional = valueOptional;
    this.value = value;
  }

  @Override
  public void check(Object map) {
    if (!(map instanceof Map)) {
      throw ValueErrors.wrongClass(column, "Map", map);
    }
    for (Map.Entry<?, ?> e : ((Map<?, ?>) map).entrySet()) {
      if (e.getKey() == null) {
        throw new org.apache.kafka.connect.errors.DataException(
            "Column '"
                + column
                + "': a map key is null; Parquet and Delta map keys cannot be null");
      }
      key.check(e.getKey());
      if (e.getValue() == null) {
        if (!valueOptional) {
          throw ValueErrors.requiredNull(column + "[" + e.getKey() + "]");
        }
      } else {
        value.check(e.getValue());
      }
    }
  }

  @Override
  public void write(RecordConsumer out, Object map) {
    Map<?, ?> m = (Map<?, ?>) map;
    out.startGroup();
    if (!m.isEmpty()) {
      out.startField(KEY_VALUE, 0);
      for (Map.Entry<?, ?> e : m.entrySet()) {
        out.startGroup();
        out.startField(KEY, 0);
        key.write(out, e.getKey());
        out.endField(KEY, 0);
        if (e.getValue() != null) {
          out.startField(VALUE, 1);
          value.write(out, e.getValue());
          out.endField(VALUE, 1);
        }
        out.endGroup();
      }
      out.endField(KEY_VALUE, 0);
    }
    out.endGroup();
  }
}
