package io.kcdelta.delta;

import io.kcdelta.schema.SchemaJson;
import io.kcdelta.schema.StructType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The table's {@code metaData} action. Fields this code does not change are carried over as read,
 * so a metadata change of ours keeps what other writers put there.
 */
public final class Metadata {
  private final String id;
  private final String name;
  private final String description;
  private final Map<String, Object> format;
  private final StructType schema;
  private final List<String> partitionColumns;
  private final Map<String, String> configuration;
  private final Long createdTime;

  private Metadata(
      String id,
      String name,
      String description,
      Map<String, Object> format,
      StructType schema,
      List<String> partitionColumns,
      Map<String, String> configuration,
      Long createdTime) {
    this.id = id;
    this.name = name;
    this.description = description;
    this.format = format;
    this.schema = schema;
    this.partitionColumns = List.copyOf(partitionColumns);
    this.configuration = Collections.unmodifiableMap(new LinkedHashMap<>(configuration));
    this.createdTime = createdTime;
  }

  /** The metadata of a new table. */
  public static Metadata create(
      StructType schema, List<String> partitionColumns, Map<String, String> configuration) {
    Map<String, Object> format = new LinkedHashMap<>();
    format.put("provider", "parquet");
    format.put("options", Map.of());
    return new Metadata(
        UUID.randomUUID().toString(),
        null,
        null,
        format,
        schema,
        partitionColumns,
        configuration,
        System.currentTimeMillis());
  }

  public String id() {
    return id;
  }

  public StructType schema() {
    return schema;
  }

  public List<String> partitionColumns() {
    return partitionColumns;
  }

  /** The table properties. */
  public Map<String, String> configuration() {
    return configuration;
  }

  /** A table property, or null. */
  public String property(String key) {
    return configuration.get(key);
  }

  /** Whether the table property is {@code true} (case-insensitive, as Delta reads booleans). */
  public boolean flag(String key) {
    return "true".equalsIgnoreCase(configuration.get(key));
  }

  public Metadata withSchema(StructType newSchema) {
    return new Metadata(
        id, name, description, format, newSchema, partitionColumns, configuration, createdTime);
  }

  public Metadata withConfiguration(Map<String, String> newConfiguration) {
    return new Metadata(
        id, name, description, format, schema, partitionColumns, newConfiguration, createdTime);
  }

  @SuppressWarnings("unchecked")
  static Metadata fromJson(Map<String, Object> json) {
    Object schemaString = json.get("schemaString");
    Object createdTime = json.get("createdTime");
    Object format = json.get("format");
    return new Metadata(
        (String) json.get("id"),
        (String) json.get("name"),
        (String) json.get("description"),
        format instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of("provider", "parquet"),
        schemaString == null ? null : SchemaJson.parse((String) schemaString),
        ActionJson.stringList(json.get("partitionColumns")),
        ActionJson.stringMap(json.get("configuration")),
        createdTime instanceof Number n ? n.longValue() : null);
  }

  Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", id);
    if (name != null) {
      out.put("name", name);
    }
    if (description != null) {
      out.put("description", description);
    }
    out.put("format", format);
    out.put("schemaString", SchemaJson.write(schema));
    out.put("partitionColumns", partitionColumns);
    out.put("configuration", configuration);
    if (createdTime != null) {
      out.put("createdTime", createdTime);
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Metadata m && toJson().equals(m.toJson());
  }

  @Override
  public int hashCode() {
    return id == null ? 0 : id.hashCode();
  }

  @Override
  public String toString() {
    return "Metadata" + toJson();
  }
}
