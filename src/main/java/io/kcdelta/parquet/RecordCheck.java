package io.kcdelta.parquet;

import io.kcdelta.schema.DeltaSchemas;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Checks, without writing anything, that a record value of one Connect schema can become a row: the same
 * checks the file writers make (Java classes per type, required fields and elements, decimal scale and
 * precision, timestamp range, null map keys), on every field including partition columns. Built once per
 * schema; the check of a conforming record allocates nothing.
 */
public final class RecordCheck {
  private final StructWriter root;

  private RecordCheck(StructWriter root) {
    this.root = root;
  }

  public static RecordCheck of(Schema valueSchema) {
    return new RecordCheck(WriterTree.build(valueSchema, DeltaSchemas.toParquet(valueSchema, Set.of()), Set.of(),
        new StructStats()));
  }

  /** @throws org.apache.kafka.connect.errors.DataException naming the column when the value does not fit */
  public void check(Struct value) {
    root.check(value);
  }
}
