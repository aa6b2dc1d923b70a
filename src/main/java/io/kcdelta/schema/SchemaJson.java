package io.kcdelta.schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table schema to and from the JSON of the Delta protocol's schema serialization ({@code
 * metaData.schemaString}): {@code {"type":"struct","fields":[{"name":..,"type":..,"nullable":..,
 * "metadata":{..}}]}}, primitive types by name, {@code decimal(p,s)}, and {@code array} / {@code
 * map} / {@code struct} objects. Types this code does not know are kept verbatim ({@link
 * UnknownType}), so a schema read and written back is unchanged.
 */
public final class SchemaJson {
  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\(\\s*(\\d+)\\s*,\\s*(-?\\d+)\\s*\\)");

  private SchemaJson() {}

  /**
   * @throws SchemaMappingException when the text is not a serialized struct
   */
  public static StructType parse(String json) {
    Object value;
    try {
      value = JsonParser.parse(json);
    } catch (RuntimeException e) {
      throw new SchemaMappingException("The table schema is not JSON: " + e.getMessage());
    }
    if (!(type(value) instanceof StructType struct)) {
      throw new SchemaMappingException("The table schema is not a struct: " + json);
    }
    return struct;
  }

  public static String write(StructType schema) {
    return JsonText.write(toJson(schema));
  }

  /** The schema as JSON values ({@link JsonText#write} renders them). */
  public static Object toJson(DeltaType type) {
    if (type instanceof PrimitiveType p) {
      return p.jsonName();
    }
    if (type instanceof DecimalType d) {
      return d.simpleString();
    }
    if (type instanceof UnknownType u) {
      return JsonParser.parse(u.json());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    if (type instanceof ArrayType a) {
      out.put("type", "array");
      out.put("elementType", toJson(a.elementType()));
      out.put("containsNull", a.containsNull());
    } else if (type instanceof MapType m) {
      out.put("type", "map");
      out.put("keyType", toJson(m.keyType()));
      out.put("valueType", toJson(m.valueType()));
      out.put("valueContainsNull", m.valueContainsNull());
    } else {
      StructType s = (StructType) type;
      List<Object> fields = new ArrayList<>(s.length());
      for (StructField f : s.fields()) {
        Map<String, Object> field = new LinkedHashMap<>();
        field.put("name", f.name());
        field.put("type", toJson(f.type()));
        field.put("nullable", f.nullable());
        field.put("metadata", f.metadata());
        fields.add(field);
      }
      out.put("type", "struct");
      out.put("fields", fields);
    }
    return out;
  }

  private static DeltaType type(Object json) {
    if (json instanceof String name) {
      PrimitiveType primitive = PrimitiveType.ofJson(name);
      if (primitive != null) {
        return primitive;
      }
      Matcher decimal = DECIMAL.matcher(name);
      if (decimal.matches()) {
        return new DecimalType(
            Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2)));
      }
      if (name.equals("decimal")) {
        return new DecimalType(10, 0); // Spark's default, as the protocol's readers take it
      }
      return new UnknownType(JsonText.quote(name));
    }
    if (json instanceof Map<?, ?> object) {
      Object kind = object.get("type");
      if ("struct".equals(kind)) {
        List<StructField> fields = new ArrayList<>();
        for (Object f : list(object.get("fields"))) {
          Map<?, ?> field = (Map<?, ?>) f;
          fields.add(
              new StructField(
                  (String) field.get("name"),
                  type(field.get("type")),
                  !Boolean.FALSE.equals(field.get("nullable")),
                  metadata(field.get("metadata"))));
        }
        return new StructType(fields);
      }
      if ("array".equals(kind)) {
        return new ArrayType(
            type(object.get("elementType")), !Boolean.FALSE.equals(object.get("containsNull")));
      }
      if ("map".equals(kind)) {
        return new MapType(
            type(object.get("keyType")),
            type(object.get("valueType")),
            !Boolean.FALSE.equals(object.get("valueContainsNull")));
      }
    }
    return new UnknownType(JsonText.write(json));
  }

  private static List<?> list(Object value) {
    return value instanceof List<?> l ? l : List.of();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> metadata(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }
}
