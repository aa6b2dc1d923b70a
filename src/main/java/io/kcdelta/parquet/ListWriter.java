package io.kcdelta.parquet;

import java.util.List;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * A Connect array in Parquet's 3-level LIST layout: group (LIST) { repeated group list { element }
 * }.
 */
final class ListWriter implements ValueWriter {
  private static final String LIST = "list";
  private static final String ELEMENT = "element";

  private final String column;
  private final boolean elementOptional;
  private final ValueWriter element;

  ListWriter(String column, boolean elementOptional, ValueWriter element) {
    this.column = column;
    this.elementOptional = elementOptional;
    this.element = element;
  }

  @Override
  public void check(Object value) {
    if (!(value instanceof List)) {
      throw ValueErrors.wrongClass(column, "List", value);
    }
    List<?> list = (List<?>) value;
    for (int i = 0, n = list.size(); i < n; i++) {
      Object e = list.get(i);
      if (e == null) {
        if (!elementOptional) {
          throw ValueErrors.requiredNull(column + "[" + i + "]");
        }
      } else {
        element.check(e);
      }
    }
  }

  @Override
  public void write(RecordConsumer out, Object value) {
    List<?> list = (List<?>) value;
    out.startGroup();
    int n = list.size();
    // An empty list is a group with no repeated field: Parquet rejects a started field without
    // values.
    if (n > 0) {
      out.startField(LIST, 0);
      for (int i = 0; i < n; i++) {
        out.startGroup();
        Object e = list.get(i);
        if (e != null) {
          out.startField(ELEMENT, 0);
          element.write(out, e);
          out.endField(ELEMENT, 0);
        }
        out.endGroup();
      }
      out.endField(LIST, 0);
    }
    out.endGroup();
  }
}
