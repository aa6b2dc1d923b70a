package io.kcdelta.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.kcdelta.delta.AddFile;
import io.kcdelta.it.infra.SparkSql;
import io.kcdelta.testutil.ParquetRows;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion vectors between Spark 4 + Delta 4 (its own JVM) and the connector's Delta layer, both
 * ways, on one file:// table: Spark DELETEs with deletion vectors and the connector's compaction
 * drops those rows; the connector marks rows deleted in a deletion vector file of its own and Spark
 * reads the table without them, then deletes more of the same file (reading our vector to add to
 * it), and the compaction drops both. At every step Spark's rows, the connector's reading of the
 * table (its vectors applied) and the model agree.
 */
@Tag("heavy")
class DeletionVectorsSparkIT {
  private static final int BATCHES = 10;
  private static final int ROWS_PER_BATCH = 500;

  @TempDir java.nio.file.Path dir;

  @Test
  void sparksDeletionVectorsAreCompactedAwayAndOursAreReadBySpark() throws Exception {
    TestTable table = new TestTable(dir.resolve("t"));
    String ref = "delta.`" + table.root + "`";
    Set<Long> expected = new TreeSet<>();
    try (SparkSql spark = SparkSql.start()) {
      spark.sql(
          "CREATE TABLE "
              + ref
              + " (id BIGINT, name STRING, p STRING) USING delta PARTITIONED BY (p)"
              + " TBLPROPERTIES ('delta.enableDeletionVectors'='true')");
      for (int b = 0; b < BATCHES; b++) {
        long from = (long) b * ROWS_PER_BATCH;
        long to = from + ROWS_PER_BATCH;
        spark.sql(
            "INSERT INTO "
                + ref
                + " SELECT id, concat('n', CAST(id AS STRING)), CAST(id % 2 AS STRING)"
                + " FROM range("
                + from
                + ", "
                + to
                + ")");
        LongStream.range(from, to).forEach(expected::add);
      }
      int filesBefore = table.liveFiles().size();

      // Spark: a third of every file, by deletion vectors.
      spark.sql("DELETE FROM " + ref + " WHERE id % 3 = 0");
      expected.removeIf(id -> id % 3 == 0);
      assertTrue(
          table.liveFiles().stream().allMatch(f -> f.deletedRows() > 0),
          "Spark deleted by deletion vectors");
      assertAgree(spark, ref, table, expected);

      Compaction first = compactAll(table);
      assertEquals(filesBefore, first.inputs, "every file merged");
      assertEquals(BATCHES * ROWS_PER_BATCH / 3 + 1, first.purged, "Spark's deleted rows dropped");
      assertTrue(table.liveFiles().stream().allMatch(f -> f.deletionVector() == null));
      int filesAfter = table.liveFiles().size();
      assertTrue(filesAfter <= 4, filesAfter + " files: at most one per size tier and partition");
      assertAgree(spark, ref, table, expected);

      // Ours: half of partition 1's largest file, by a deletion vector the connector writes.
      AddFile odd =
          table.liveFiles().stream()
              .filter(f -> "1".equals(f.partitionValues().get("p")))
              .max(java.util.Comparator.comparingLong(AddFile::numRecords))
              .orElseThrow();
      List<Group> rows = ParquetRows.read(table.conf, table.absolute(odd));
      List<Long> positions = new ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        long id = rows.get(i).getLong("id", 0);
        if (id % 4 == 1) {
          positions.add((long) i);
          expected.remove(id);
        }
      }
      table.deleteRows(odd, positions.stream().mapToLong(Long::longValue).toArray());
      assertAgree(spark, ref, table, expected);

      // Spark deletes more of the same file: its vector must hold ours too.
      spark.sql("DELETE FROM " + ref + " WHERE id < 2500 AND p = '1'");
      expected.removeIf(id -> id < 2500 && id % 2 == 1);
      assertAgree(spark, ref, table, expected);

      table
          .liveFiles()
          .forEach(
              f ->
                  System.out.println(
                      "LIVE "
                          + f.path()
                          + " "
                          + f.numRecords()
                          + " "
                          + f.deletionVector()
                          + " "
                          + f.size()));
      Compaction second = compactAll(table);
      assertEquals(1, second.inputs, "partition 1's file, more than a fifth deleted, alone");
      assertTrue(table.liveFiles().stream().allMatch(f -> f.deletionVector() == null));
      assertAgree(spark, ref, table, expected);
      System.out.printf(
          "DeletionVectorsSparkIT: %d Spark files (%d rows) with Spark's vectors -> %d files,"
              + " %d deleted rows dropped; ours + Spark's -> %d files rewritten, %d deleted rows"
              + " dropped; %d rows left, Spark and the connector agree%n",
          first.inputs,
          BATCHES * ROWS_PER_BATCH,
          filesAfter,
          first.purged,
          second.inputs,
          second.purged,
          expected.size());
    }
  }

  private record Compaction(int inputs, long purged) {}

  private static Compaction compactAll(TestTable table) throws Exception {
    Compactor compactor =
        new Compactor(
            table.log(),
            table.conf,
            new CompactionPlanner(64L << 20, 2, 0),
            new FileRewriter(table.conf, CompressionCodecName.SNAPPY, 64L << 20),
            table.names);
    int inputs = 0;
    long purged = 0;
    for (int i = 0; i < 100; i++) {
      Compactor.Result r = compactor.compactOnce(System.currentTimeMillis(), () -> false);
      if (r instanceof Compactor.NothingToDo) {
        return new Compaction(inputs, purged);
      }
      Compactor.Compacted c = assertInstanceOf(Compactor.Compacted.class, r);
      inputs += c.files();
      purged += c.purgedRows();
    }
    throw new AssertionError("compaction did not settle");
  }

  /** Spark's rows, the connector's reading of the table and the model are the same ids, once. */
  private static void assertAgree(SparkSql spark, String ref, TestTable table, Set<Long> expected)
      throws Exception {
    JsonNode counts =
        spark
            .sql(
                "SELECT count(*) AS n, count(DISTINCT id) AS ids,"
                    + " sum(CASE WHEN name = concat('n', CAST(id AS STRING))"
                    + " AND p = CAST(id % 2 AS STRING) THEN 0 ELSE 1 END) AS wrong FROM "
                    + ref)
            .get(0);
    assertEquals(expected.size(), counts.get("n").asLong(), counts.toString());
    assertEquals(expected.size(), counts.get("ids").asLong(), counts.toString());
    assertEquals(0, counts.get("wrong").asLong(), counts.toString());
    Set<Long> sparkIds =
        spark.sql("SELECT id FROM " + ref).stream()
            .map(r -> r.get("id").asLong())
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(expected, sparkIds, "Spark's ids");
    var ours = table.idCounts();
    assertEquals(expected, new TreeSet<>(ours.keySet()), "the connector's reading");
    assertTrue(ours.values().stream().allMatch(n -> n == 1), "each row once");
  }
}
