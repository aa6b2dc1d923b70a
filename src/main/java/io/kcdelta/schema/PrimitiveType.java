package io.kcdelta.schema;

/** The primitive types of the Delta protocol, by their serialized names. */
public enum PrimitiveType implements DeltaType {
  BYTE("byte"),
  SHORT("short"),
  INTEGER("integer"),
  LONG("long"),
  FLOAT("float"),
  DOUBLE("double"),
  BOOLEAN("boolean"),
  STRING("string"),
  BINARY("binary"),
  DATE("date"),
  /** Microseconds since the epoch, adjusted to UTC. */
  TIMESTAMP("timestamp"),
  /** Microseconds since the epoch of a local date-time (table feature timestampNtz). */
  TIMESTAMP_NTZ("timestamp_ntz");

  private final String json;

  PrimitiveType(String json) {
    this.json = json;
  }

  /** The name in a serialized schema. */
  public String jsonName() {
    return json;
  }

  @Override
  public String simpleString() {
    return json;
  }

  /** The primitive type of that serialized name, or null. */
  static PrimitiveType ofJson(String name) {
    for (PrimitiveType t : values()) {
      if (t.json.equals(name)) {
        return t;
      }
    }
    return null;
  }
}
