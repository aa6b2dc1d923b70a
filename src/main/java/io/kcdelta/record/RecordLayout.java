package io.kcdelta.record;

import io.kcdelta.schema.FileColumns;
import io.kcdelta.schema.PartitionValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * How records of one Connect schema map onto a table: which top-level fields are its partition
 * columns (in the table's order), kept out of the Parquet file as Delta requires, and the table's
 * columns their files hold (names, ids and types in the file).
 */
public record RecordLayout(
    Schema valueSchema, List<Field> partitionFields, Set<String> excluded, FileColumns columns) {

  /** The record's partition values, formatted as Delta stores them; the key of its open file. */
  public List<String> partitionKey(Struct value) {
    if (partitionFields.isEmpty()) {
      return List.of();
    }
    List<String> key = new ArrayList<>(partitionFields.size());
    for (Field f : partitionFields) {
      key.add(PartitionValues.format(value.get(f), f.schema()));
    }
    return key;
  }
}
