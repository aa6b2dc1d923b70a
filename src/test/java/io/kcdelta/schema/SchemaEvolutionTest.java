package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.schema.SchemaEvolution.Mode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

  private static StructType struct(StructField... fields) {
    return new StructType(fields);
  }

  private static StructField f(String name, DeltaType type, boolean nullable) {
    return new StructField(name, type, nullable);
  }

  private final StructType table =
      struct(
          f("id", PrimitiveType.LONG, false),
          f("name", PrimitiveType.STRING, true),
          f("addr", struct(f("city", PrimitiveType.STRING, true)), true));

  @Test
  void equalSchemaReturnsTheTableInstance() {
    StructType same =
        struct(
            f("id", PrimitiveType.LONG, false),
            f("name", PrimitiveType.STRING, true),
            f("addr", struct(f("city", PrimitiveType.STRING, true)), true));
    assertSame(table, SchemaEvolution.evolve(table, same, Mode.NONE));
    assertSame(table, SchemaEvolution.evolve(table, same, Mode.ADD_COLUMNS));
  }

  @Test
  void missingNullableColumnIsFine() {
    StructType incoming = struct(f("id", PrimitiveType.LONG, false));
    assertSame(table, SchemaEvolution.evolve(table, incoming, Mode.NONE));
  }

  @Test
  void missingRequiredColumnIsAnError() {
    StructType incoming = struct(f("name", PrimitiveType.STRING, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'id'"), e.getMessage());
  }

  @Test
  void requiredIncomingFieldFitsNullableColumn() {
    StructType incoming =
        struct(f("id", PrimitiveType.LONG, false), f("name", PrimitiveType.STRING, false));
    assertSame(table, SchemaEvolution.evolve(table, incoming, Mode.NONE));
  }

  @Test
  void newFieldWithoutEvolutionNamesTheSetting() {
    StructType incoming =
        struct(f("id", PrimitiveType.LONG, false), f("extra", PrimitiveType.INTEGER, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> SchemaEvolution.evolve(table, incoming, Mode.NONE));
    assertTrue(e.getMessage().contains("'extra'"), e.getMessage());
    assertTrue(e.getMessage().contains("delta.schema.evolution=add-columns"), e.getMessage());
  }

  @Test
  void newFieldsAreAppendedAsNullable() {
    StructType incoming =
        struct(
            f("extra", PrimitiveType.INTEGER, false),
            f("id", PrimitiveType.LONG, false),
            f(
                "addr",
                struct(
                    f("zip", PrimitiveType.STRING, false), f("city", PrimitiveType.STRING, true)),
                true));
    StructType evolved = SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS);
    StructType expected =
        struct(
            f("id", PrimitiveType.LONG, false),
            f("name", PrimitiveType.STRING, true),
            f(
                "addr",
                struct(f("city", PrimitiveType.STRING, true), f("zip", PrimitiveType.STRING, true)),
                true),
            f("extra", PrimitiveType.INTEGER, true));
    assertEquals(expected, evolved, evolved.simpleString());
    // evolve is idempotent once the table has the columns
    assertSame(evolved, SchemaEvolution.evolve(evolved, incoming, Mode.ADD_COLUMNS));
  }

  @Test
  void newNestedFieldWithoutEvolutionIsAnError() {
    StructType incoming =
        struct(
            f("id", PrimitiveType.LONG, false),
            f("addr", struct(f("zip", PrimitiveType.STRING, true)), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> SchemaEvolution.evolve(table, incoming, Mode.NONE));
    assertTrue(e.getMessage().contains("'addr.zip'"), e.getMessage());
  }

  @Test
  void fieldsAddedInsideArraysAndMapsOfStructs() {
    StructType t =
        struct(
            f("a", new ArrayType(struct(f("x", PrimitiveType.INTEGER, true)), true), true),
            f(
                "m",
                new MapType(
                    PrimitiveType.STRING, struct(f("x", PrimitiveType.INTEGER, true)), true),
                true));
    StructType in =
        struct(
            f(
                "a",
                new ArrayType(
                    struct(
                        f("x", PrimitiveType.INTEGER, true), f("y", PrimitiveType.INTEGER, true)),
                    true),
                true),
            f(
                "m",
                new MapType(
                    PrimitiveType.STRING,
                    struct(f("x", PrimitiveType.INTEGER, true), f("z", PrimitiveType.LONG, false)),
                    true),
                true));
    StructType evolved = SchemaEvolution.evolve(t, in, Mode.ADD_COLUMNS);
    StructType expected =
        struct(
            f(
                "a",
                new ArrayType(
                    struct(
                        f("x", PrimitiveType.INTEGER, true), f("y", PrimitiveType.INTEGER, true)),
                    true),
                true),
            f(
                "m",
                new MapType(
                    PrimitiveType.STRING,
                    struct(f("x", PrimitiveType.INTEGER, true), f("z", PrimitiveType.LONG, true)),
                    true),
                true));
    assertEquals(expected, evolved, evolved.simpleString());
  }

  @Test
  void typeMismatchNamesColumnAndBothTypes() {
    StructType incoming = struct(f("id", PrimitiveType.STRING, false));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'id'"), e.getMessage());
    assertTrue(
        e.getMessage().contains("(long)") && e.getMessage().contains("(string)"), e.getMessage());
  }

  @Test
  void aNarrowerFieldFitsItsColumnWithoutAChange() {
    StructType longs = struct(f("n", PrimitiveType.LONG, true), f("d", PrimitiveType.DOUBLE, true));
    StructType narrow =
        struct(f("n", PrimitiveType.INTEGER, true), f("d", PrimitiveType.FLOAT, true));
    assertSame(longs, SchemaEvolution.evolve(longs, narrow, Mode.NONE));
  }

  @Test
  void aWiderFieldWidensTheColumnOnlyWhereTheTableAllowsIt() {
    StructType ints = struct(f("n", PrimitiveType.INTEGER, true));
    StructType wider = struct(f("n", PrimitiveType.LONG, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(ints, wider, Mode.ADD_COLUMNS, false));
    assertTrue(e.getMessage().contains("delta.enableTypeWidening"), e.getMessage());
    assertThrows(
        SchemaMappingException.class, () -> SchemaEvolution.evolve(ints, wider, Mode.NONE, true));

    StructField n = SchemaEvolution.evolve(ints, wider, Mode.ADD_COLUMNS, true).field("n");
    assertEquals(PrimitiveType.LONG, n.type());
    assertEquals(
        List.of(Map.of("fromType", "integer", "toType", "long")),
        n.metadata().get(SchemaEvolution.TYPE_CHANGES));
    StructType timestamps = struct(f("t", PrimitiveType.TIMESTAMP_NTZ, true));
    assertThrows(
        SchemaMappingException.class,
        () ->
            SchemaEvolution.evolve(
                struct(f("t", PrimitiveType.DATE, true)), timestamps, Mode.ADD_COLUMNS, true),
        "date to timestamp_ntz is no widening this writer does");
  }

  @Test
  void nestedTypeMismatchAndDecimalMismatch() {
    StructType incoming =
        struct(
            f("id", PrimitiveType.LONG, false),
            f("addr", struct(f("city", PrimitiveType.LONG, true)), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'addr.city'"), e.getMessage());

    StructType t = struct(f("d", new DecimalType(10, 2), true));
    assertSame(
        t, SchemaEvolution.evolve(t, struct(f("d", new DecimalType(10, 2), true)), Mode.NONE));
    SchemaMappingException d =
        assertThrows(
            SchemaMappingException.class,
            () ->
                SchemaEvolution.evolve(
                    t, struct(f("d", new DecimalType(12, 2), true)), Mode.ADD_COLUMNS));
    assertTrue(
        d.getMessage().contains("decimal(10,2)") && d.getMessage().contains("decimal(12,2)"),
        d.getMessage());
  }

  @Test
  void structVersusPrimitiveIsAMismatch() {
    StructType incoming =
        struct(f("id", PrimitiveType.LONG, false), f("addr", PrimitiveType.STRING, true));
    assertThrows(
        SchemaMappingException.class,
        () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
  }

  @Test
  void nullableIncomingForRequiredColumnIsAnError() {
    StructType incoming = struct(f("id", PrimitiveType.LONG, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(
        e.getMessage().contains("'id'") && e.getMessage().contains("NOT NULL"), e.getMessage());
  }

  @Test
  void nullableArrayElementsForRequiredElementsIsAnError() {
    StructType t = struct(f("a", new ArrayType(PrimitiveType.INTEGER, false), true));
    StructType in = struct(f("a", new ArrayType(PrimitiveType.INTEGER, true), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> SchemaEvolution.evolve(t, in, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'a.element'"), e.getMessage());
    assertSame(
        in, SchemaEvolution.evolve(in, t, Mode.NONE), "required elements fit a nullable array");
  }

  @Test
  void caseOnlyClashIsAnError() {
    StructType incoming =
        struct(f("id", PrimitiveType.LONG, false), f("Name", PrimitiveType.STRING, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(
        e.getMessage().contains("'Name'") && e.getMessage().contains("'name'"), e.getMessage());
  }

  @Test
  void twoNewFieldsDifferingOnlyInCaseClash() {
    StructType incoming =
        struct(
            f("id", PrimitiveType.LONG, false),
            f("zip", PrimitiveType.STRING, true),
            f("ZIP", PrimitiveType.STRING, true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(
        e.getMessage().contains("'ZIP'") && e.getMessage().contains("'zip'"), e.getMessage());
  }
}
