package io.kcdelta.delta;

import java.util.List;
import java.util.Map;

/**
 * What one commit changes, as its writer means it; the layer adds what the table's features ask of
 * every commit (commitInfo first with the in-commit timestamp, row ids and their high-water mark,
 * column mapping of added columns, the protocol a new table's properties need).
 *
 * @param metadata the new metadata, or null when it does not change (a new table needs one)
 * @param operation as Delta's history names it ({@code WRITE}, {@code CREATE TABLE}, {@code
 *     OPTIMIZE})
 * @param operationParameters values as JSON text, as Spark writes them ({@code "mode":
 *     "\"Append\""} is written {@code "mode":"Append"})
 * @param blindAppend whether the commit only adds files without reading any
 * @param commitInfo more fields for the commitInfo action (e.g. which Kafka partitions the txn
 *     appIds name)
 */
public record CommitPlan(
    Metadata metadata,
    List<AddFile> adds,
    List<RemoveFile> removes,
    List<Txn> txns,
    String operation,
    Map<String, String> operationParameters,
    boolean blindAppend,
    Map<String, Object> commitInfo) {

  public CommitPlan {
    adds = List.copyOf(adds);
    removes = List.copyOf(removes);
    txns = List.copyOf(txns);
    operationParameters = Map.copyOf(operationParameters);
    commitInfo = commitInfo == null ? Map.of() : Map.copyOf(commitInfo);
  }
}
