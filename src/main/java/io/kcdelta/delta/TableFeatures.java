package io.kcdelta.delta;

import io.kcdelta.schema.ArrayType;
import io.kcdelta.schema.DeltaType;
import io.kcdelta.schema.GenerationExpression;
import io.kcdelta.schema.MapType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the connector may append to a table with this protocol and metadata: every feature a
 * writer must respect is one it implements ({@link TableFeature}), and none of the features it
 * implements only while unused (invariants, constraints, generated, identity and default columns)
 * is in use.
 */
public final class TableFeatures {
  /** Column metadata keys of features we refuse while they are in use. */
  private static final List<String[]> COLUMN_RULES =
      List.of(
          new String[] {"delta.invariants", "an invariant", TableFeature.INVARIANTS.id()},
          new String[] {
            "delta.generationExpression", "a generated column", TableFeature.GENERATED_COLUMNS.id()
          },
          new String[] {
            "delta.identity.start", "an identity column", TableFeature.IDENTITY_COLUMNS.id()
          },
          new String[] {"CURRENT_DEFAULT", "a default value", TableFeature.COLUMN_DEFAULTS.id()});

  private TableFeatures() {}

  /**
   * @throws UnsupportedTableException naming the feature or column and the table
   */
  public static void checkWritable(String table, Protocol protocol, Metadata metadata) {
    Set<String> unknown = new TreeSet<>();
    for (String id : protocol.writerFeatureSet()) {
      if (TableFeature.of(id) == null) {
        unknown.add(id);
      }
    }
    if (protocol.minReaderVersion() > 3 || protocol.minWriterVersion() > 7) {
      throw new UnsupportedTableException(
          "The Delta table "
              + table
              + " needs protocol ("
              + protocol.minReaderVersion()
              + ","
              + protocol.minWriterVersion()
              + "); this connector writes tables up to (3,7) with the table features it knows.");
    }
    if (!unknown.isEmpty()) {
      throw new UnsupportedTableException(
          "The Delta table "
              + table
              + " uses table feature(s) "
              + unknown
              + " that this connector does not implement; appending could break the rules they"
              + " set for every reader. Write to another table, or remove the feature(s) from"
              + " the table. Supported: "
              + supportedNames());
    }
    if (metadata == null) {
      return;
    }
    List<String> problems = new ArrayList<>();
    checkColumns("", metadata.schema(), protocol, problems, metadata);
    if (protocol.supports(TableFeature.CHECK_CONSTRAINTS)) {
      metadata.configuration().keySet().stream()
          .filter(k -> k.startsWith("delta.constraints."))
          .forEach(
              k ->
                  problems.add(
                      "CHECK constraint '"
                          + k.substring("delta.constraints.".length())
                          + "' ("
                          + metadata.property(k)
                          + ")"));
    }
    if (!problems.isEmpty()) {
      throw new UnsupportedTableException(
          "The Delta table "
              + table
              + " has "
              + String.join("; ", problems)
              + ". This connector does not evaluate these rules, so it does not append to such"
              + " a table: drop them (ALTER TABLE ... DROP CONSTRAINT / ALTER COLUMN) or write to"
              + " another table.");
    }
  }

  private static void checkColumns(
      String path, DeltaType type, Protocol protocol, List<String> problems, Metadata metadata) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        String column = path.isEmpty() ? f.name() : path + "." + f.name();
        for (String[] rule : COLUMN_RULES) {
          TableFeature feature = TableFeature.of(rule[2]);
          if (f.metadata().containsKey(rule[0])
              && protocol.supports(feature)
              && !(rule[0].equals(GenerationExpression.METADATA_KEY)
                  && path.isEmpty()
                  && computedPartition(f, metadata))) {
            problems.add(
                rule[1] + " on column '" + column + "' (" + f.metadata().get(rule[0]) + ")");
          }
        }
        checkColumns(column, f.type(), protocol, problems, metadata);
      }
    } else if (type instanceof ArrayType a) {
      checkColumns(path + ".element", a.elementType(), protocol, problems, metadata);
    } else if (type instanceof MapType m) {
      checkColumns(path + ".key", m.keyType(), protocol, problems, metadata);
      checkColumns(path + ".value", m.valueType(), protocol, problems, metadata);
    }
  }

  /**
   * A generated partition column the connector computes ({@link GenerationExpression}): of a form
   * it knows, reading a top-level column of a type that form reads, of the type it gives. Generated
   * columns stored in data files are not computed (yet).
   */
  private static boolean computedPartition(StructField column, Metadata metadata) {
    Object sql = column.metadata().get(GenerationExpression.METADATA_KEY);
    GenerationExpression expression =
        sql == null ? null : GenerationExpression.parse(sql.toString());
    if (expression == null || !metadata.partitionColumns().contains(column.name())) {
      return false;
    }
    StructField source = metadata.schema().field(expression.source());
    return source != null && column.type().equals(expression.resultType(source.type()));
  }

  private static List<String> supportedNames() {
    List<String> names = new ArrayList<>();
    for (TableFeature f : TableFeature.values()) {
      names.add(f.id());
    }
    return names;
  }
}
