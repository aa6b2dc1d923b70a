package io.kcdelta.schema;

/**
 * A type this connector does not write (e.g. {@code variant}, or one newer than this code), kept as
 * its serialized JSON so that a schema read from a table is written back unchanged.
 */
public record UnknownType(String json) implements DeltaType {
  @Override
  public String simpleString() {
    return json.startsWith("\"") ? json.substring(1, json.length() - 1) : json;
  }
}
