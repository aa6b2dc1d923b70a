package io.kcdelta.schema;

/** {@code decimal(precision, scale)}; Delta allows precision up to 38. */
public record DecimalType(int precision, int scale) implements DeltaType {
  public static final int MAX_PRECISION = 38;

  public DecimalType {
    if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) {
      throw new SchemaMappingException(
          "decimal("
              + precision
              + ","
              + scale
              + ") is not a Delta type: precision 1..38, scale 0..precision");
    }
  }

  @Override
  public String simpleString() {
    return "decimal(" + precision + "," + scale + ")";
  }
}
