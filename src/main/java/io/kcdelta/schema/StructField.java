package io.kcdelta.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A column or nested field. {@code metadata} holds the field's metadata as read from the table
 * (column mapping ids and physical names, type change history, generation expressions, ...): JSON
 * values (String, Number, Boolean, List, Map, null), kept in order and written back unchanged.
 */
public record StructField(
    String name, DeltaType type, boolean nullable, Map<String, Object> metadata) {
  public StructField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    metadata =
        metadata == null || metadata.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
  }

  /** A nullable field. */
  public StructField(String name, DeltaType type) {
    this(name, type, true, Map.of());
  }

  public StructField(String name, DeltaType type, boolean nullable) {
    this(name, type, nullable, Map.of());
  }

  /** The same field with another type. */
  public StructField withType(DeltaType newType) {
    return new StructField(name, newType, nullable, metadata);
  }
}
