package io.kcdelta.schema;

/** A map; keys are never null, {@code valueContainsNull} says whether values may be. */
public record MapType(DeltaType keyType, DeltaType valueType, boolean valueContainsNull)
    implements DeltaType {
  @Override
  public String simpleString() {
    return "map<" + keyType.simpleString() + "," + valueType.simpleString() + ">";
  }
}
