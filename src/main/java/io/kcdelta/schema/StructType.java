package io.kcdelta.schema;

import java.util.List;
import java.util.stream.Collectors;

/** A struct: the table's schema, or a nested struct column. */
public record StructType(List<StructField> fields) implements DeltaType {
  public StructType {
    fields = List.copyOf(fields);
  }

  public StructType(StructField... fields) {
    this(List.of(fields));
  }

  /** The field of exactly that name, or null. */
  public StructField field(String name) {
    for (StructField f : fields) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  public List<String> fieldNames() {
    return fields.stream().map(StructField::name).toList();
  }

  public int length() {
    return fields.size();
  }

  @Override
  public String simpleString() {
    return fields.stream()
        .map(f -> f.name() + ":" + f.type().simpleString())
        .collect(Collectors.joining(",", "struct<", ">"));
  }
}
