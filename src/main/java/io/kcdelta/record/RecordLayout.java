package io.kcdelta.record;

import io.kcdelta.schema.FileColumns;
import io.kcdelta.schema.GenerationExpression;
import io.kcdelta.schema.PartitionValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * How records of one Connect schema map onto a table: where each of its partition columns (in the
 * table's order) takes its value from, the top-level fields kept out of the Parquet file as Delta
 * requires, and the table's columns their files hold (names, ids and types in the file).
 */
public record RecordLayout(
    Schema valueSchema,
    List<PartitionSource> partitions,
    Set<String> excluded,
    FileColumns columns) {

  /**
   * A partition column's value: a field of the record, or a generated column's expression of one.
   *
   * @param field the field the value is (identity) or is computed from
   * @param expression null for a field of its own
   * @param provided a field of the record that carries the generated column itself (its value must
   *     be the computed one), or null
   */
  public record PartitionSource(
      String column, Field field, GenerationExpression expression, Field provided) {

    String value(Struct record) {
      if (expression == null) {
        return PartitionValues.format(record.get(field), field.schema());
      }
      String computed = expression.partitionValue(record.get(field));
      if (provided != null) {
        String given = PartitionValues.format(record.get(provided), provided.schema());
        if (!Objects.equals(given, computed)) {
          throw new DataException(
              "The record's '"
                  + column
                  + "' is "
                  + given
                  + " but the table generates it as "
                  + expression.sql()
                  + " = "
                  + computed
                  + "; leave the field out, or give it the generated value");
        }
      }
      return computed;
    }
  }

  /**
   * The record's partition values, formatted as Delta stores them; the key of its open file.
   *
   * @throws DataException a field that carries a generated column holds another value
   */
  public List<String> partitionKey(Struct value) {
    if (partitions.isEmpty()) {
      return List.of();
    }
    List<String> key = new ArrayList<>(partitions.size());
    for (PartitionSource p : partitions) {
      key.add(p.value(value));
    }
    return key;
  }
}
