package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.standalone.types.ArrayType;
import io.delta.standalone.types.DataType;
import io.delta.standalone.types.DecimalType;
import io.delta.standalone.types.IntegerType;
import io.delta.standalone.types.LongType;
import io.delta.standalone.types.MapType;
import io.delta.standalone.types.StringType;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import io.kcdelta.schema.SchemaEvolution.Mode;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

  private static StructType struct(StructField... fields) {
    return new StructType(fields);
  }

  private static StructField f(String name, DataType type, boolean nullable) {
    return new StructField(name, type, nullable);
  }

  private final StructType table =
      struct(
          f("id", new LongType(), false),
          f("name", new StringType(), true),
          f("addr", struct(f("city", new StringType(), true)), true));

  @Test
  void equalSchemaReturnsTheTableInstance() {
    StructType same =
        struct(
            f("id", new LongType(), false),
            f("name", new StringType(), true),
            f("addr", struct(f("city", new StringType(), true)), true));
    assertSame(table, SchemaEvolution.evolve(table, same, Mode.NONE));
    assertSame(table, SchemaEvolution.evolve(table, same, Mode.ADD_COLUMNS));
  }

  @Test
  void missingNullableColumnIsFine() {
    StructType incoming = struct(f("id", new LongType(), false));
    assertSame(table, SchemaEvolution.evolve(table, incoming, Mode.NONE));
  }

  @Test
  void missingRequiredColumnIsAnError() {
    StructType incoming = struct(f("name", new StringType(), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'id'"), e.getMessage());
  }

  @Test
  void requiredIncomingFieldFitsNullableColumn() {
    StructType incoming =
        struct(f("id", new LongType(), false), f("name", new StringType(), false));
    assertSame(table, SchemaEvolution.evolve(table, incoming, Mode.NONE));
  }

  @Test
  void newFieldWithoutEvolutionNamesTheSetting() {
    StructType incoming =
        struct(f("id", new LongType(), false), f("extra", new IntegerType(), true));
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
            f("extra", new IntegerType(), false),
            f("id", new LongType(), false),
            f(
                "addr",
                struct(f("zip", new StringType(), false), f("city", new StringType(), true)),
                true));
    StructType evolved = SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS);
    StructType expected =
        struct(
            f("id", new LongType(), false),
            f("name", new StringType(), true),
            f(
                "addr",
                struct(f("city", new StringType(), true), f("zip", new StringType(), true)),
                true),
            f("extra", new IntegerType(), true));
    assertEquals(expected, evolved, evolved.getTreeString());
    // evolve is idempotent once the table has the columns
    assertSame(evolved, SchemaEvolution.evolve(evolved, incoming, Mode.ADD_COLUMNS));
  }

  @Test
  void newNestedFieldWithoutEvolutionIsAnError() {
    StructType incoming =
        struct(
            f("id", new LongType(), false),
            f("addr", struct(f("zip", new StringType(), true)), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> SchemaEvolution.evolve(table, incoming, Mode.NONE));
    assertTrue(e.getMessage().contains("'addr.zip'"), e.getMessage());
  }

  @Test
  void fieldsAddedInsideArraysAndMapsOfStructs() {
    StructType t =
        struct(
            f("a", new ArrayType(struct(f("x", new IntegerType(), true)), true), true),
            f(
                "m",
                new MapType(new StringType(), struct(f("x", new IntegerType(), true)), true),
                true));
    StructType in =
        struct(
            f(
                "a",
                new ArrayType(
                    struct(f("x", new IntegerType(), true), f("y", new IntegerType(), true)), true),
                true),
            f(
                "m",
                new MapType(
                    new StringType(),
                    struct(f("x", new IntegerType(), true), f("z", new LongType(), false)),
                    true),
                true));
    StructType evolved = SchemaEvolution.evolve(t, in, Mode.ADD_COLUMNS);
    StructType expected =
        struct(
            f(
                "a",
                new ArrayType(
                    struct(f("x", new IntegerType(), true), f("y", new IntegerType(), true)), true),
                true),
            f(
                "m",
                new MapType(
                    new StringType(),
                    struct(f("x", new IntegerType(), true), f("z", new LongType(), true)),
                    true),
                true));
    assertEquals(expected, evolved, evolved.getTreeString());
  }

  @Test
  void typeMismatchNamesColumnAndBothTypes() {
    StructType incoming = struct(f("id", new IntegerType(), false));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'id'"), e.getMessage());
    assertTrue(e.getMessage().contains("bigint") && e.getMessage().contains("int"), e.getMessage());
  }

  @Test
  void nestedTypeMismatchAndDecimalMismatch() {
    StructType incoming =
        struct(
            f("id", new LongType(), false),
            f("addr", struct(f("city", new LongType(), true)), true));
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
    StructType incoming = struct(f("id", new LongType(), false), f("addr", new StringType(), true));
    assertThrows(
        SchemaMappingException.class,
        () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
  }

  @Test
  void nullableIncomingForRequiredColumnIsAnError() {
    StructType incoming = struct(f("id", new LongType(), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(
        e.getMessage().contains("'id'") && e.getMessage().contains("NOT NULL"), e.getMessage());
  }

  @Test
  void nullableArrayElementsForRequiredElementsIsAnError() {
    StructType t = struct(f("a", new ArrayType(new IntegerType(), false), true));
    StructType in = struct(f("a", new ArrayType(new IntegerType(), true), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class, () -> SchemaEvolution.evolve(t, in, Mode.ADD_COLUMNS));
    assertTrue(e.getMessage().contains("'a.element'"), e.getMessage());
    assertSame(
        in, SchemaEvolution.evolve(in, t, Mode.NONE), "required elements fit a nullable array");
  }

  @Test
  void caseOnlyClashIsAnError() {
    StructType incoming = struct(f("id", new LongType(), false), f("Name", new StringType(), true));
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
            f("id", new LongType(), false),
            f("zip", new StringType(), true),
            f("ZIP", new StringType(), true));
    SchemaMappingException e =
        assertThrows(
            SchemaMappingException.class,
            () -> SchemaEvolution.evolve(table, incoming, Mode.ADD_COLUMNS));
    assertTrue(
        e.getMessage().contains("'ZIP'") && e.getMessage().contains("'zip'"), e.getMessage());
  }
}
