package io.kcdelta.schema;

/** An array; {@code containsNull} says whether elements may be null. */
public record ArrayType(DeltaType elementType, boolean containsNull) implements DeltaType {
  @Override
  public String simpleString() {
    return "array<" + elementType.simpleString() + ">";
  }
}
