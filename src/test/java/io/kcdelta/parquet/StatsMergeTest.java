package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.schema.PrimitiveType;
import io.kcdelta.schema.StructField;
import io.kcdelta.schema.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatsMergeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Schema INNER =
      SchemaBuilder.struct()
          .optional()
          .field("a", Schema.INT64_SCHEMA)
          .field("s", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  private static final Schema ROW =
      SchemaBuilder.struct()
          .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
          .field("i64", Schema.INT64_SCHEMA)
          .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .field("str", Schema.OPTIONAL_STRING_SCHEMA)
          .field("dec", Decimal.builder(2).optional().build())
          .field("date", Date.builder().optional().build())
          .field("ts", Timestamp.builder().optional().build())
          .field("inner", INNER)
          .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
          .build();

  @TempDir java.nio.file.Path dir;

  /**
   * Without the rows deletion vectors delete: the count is of the rows kept, bounds are wide, and a
   * null count stays only where it is still exact (0, or every row).
   */
  @Test
  void withoutDeletedRowsBoundsAreWideAndOnlyExactNullCountsStay() throws IOException {
    StructType schema =
        new StructType(
            List.of(
                new StructField("id", PrimitiveType.LONG, false),
                new StructField("some", PrimitiveType.LONG, true),
                new StructField("none", PrimitiveType.LONG, true)));
    String a =
        "{\"numRecords\":10,\"minValues\":{\"id\":1,\"some\":5},\"maxValues\":{\"id\":10,\"some\":9},"
            + "\"nullCount\":{\"id\":0,\"some\":4,\"none\":10}}";
    String b =
        "{\"numRecords\":5,\"tightBounds\":false,\"minValues\":{\"id\":11,\"some\":1},"
            + "\"maxValues\":{\"id\":15,\"some\":2},\"nullCount\":{\"id\":0,\"some\":0,\"none\":5}}";

    JsonNode merged = JSON.readTree(StatsMerge.merge(List.of(a, b), schema, 3));

    assertEquals(12, merged.get("numRecords").asLong());
    assertEquals(false, merged.get("tightBounds").asBoolean());
    assertEquals(1, merged.get("minValues").get("id").asLong());
    assertEquals(15, merged.get("maxValues").get("id").asLong());
    assertEquals(0, merged.get("nullCount").get("id").asLong());
    assertEquals(12, merged.get("nullCount").get("none").asLong(), "all null, all kept rows");
    assertNull(merged.get("nullCount").get("some"), "4 of 15 says nothing once rows are gone");
    // A wide input keeps the output wide even with nothing deleted.
    assertEquals(
        false,
        JSON.readTree(StatsMerge.merge(List.of(a, b), schema)).get("tightBounds").asBoolean());
    assertNull(JSON.readTree(StatsMerge.merge(List.of(a, a), schema)).get("tightBounds"));
  }

  /**
   * The merged stats of the files are the stats our writer gives one file of all their rows: random
   * rows (nulls, long strings, extremes) in 2 to 6 files, 60 rounds.
   */
  @Test
  void mergedStatsAreThoseOfOneFileWithAllRows() throws IOException {
    Random random = new Random(42);
    StructType delta = DeltaSchemas.toDelta(ROW);
    for (int round = 0; round < 60; round++) {
      int files = 2 + random.nextInt(5);
      List<List<Struct>> split = new ArrayList<>();
      List<Struct> all = new ArrayList<>();
      for (int f = 0; f < files; f++) {
        List<Struct> rows = new ArrayList<>();
        for (int r = random.nextInt(5) + 1; r > 0; r--) {
          rows.add(row(random));
        }
        split.add(rows);
        all.addAll(rows);
      }
      List<String> parts = new ArrayList<>();
      for (List<Struct> rows : split) {
        parts.add(statsOf(rows));
      }
      JsonNode merged = JSON.readTree(StatsMerge.merge(parts, delta));
      assertEquals(JSON.readTree(statsOf(all)), merged, "round " + round + ": " + parts);
    }
  }

  @Test
  void aBoundOrCountOneFileLacksIsLeftOut() throws IOException {
    StructType schema =
        new StructType(
            new StructField[] {
              new StructField("id", PrimitiveType.LONG),
              new StructField("name", PrimitiveType.STRING),
              new StructField("at", PrimitiveType.TIMESTAMP)
            });
    String a =
        "{\"numRecords\":2,\"minValues\":{\"id\":1,\"name\":\"b\",\"at\":\"2024-01-01T00:00:00.000Z\"},"
            + "\"maxValues\":{\"id\":5,\"name\":\"x\",\"at\":\"2024-01-02T00:00:00.000Z\"},"
            + "\"nullCount\":{\"id\":0,\"name\":1,\"at\":0}}";
    // As another writer renders them: an offset instead of Z, no bound for name, no null counts.
    String b =
        "{\"numRecords\":3,\"minValues\":{\"id\":-7,\"at\":\"2023-12-31T23:00:00.000+00:00\"},"
            + "\"maxValues\":{\"id\":3,\"at\":\"2024-01-03T01:00:00.000+01:00\"}}";
    JsonNode merged = JSON.readTree(StatsMerge.merge(List.of(a, b), schema));
    assertEquals(
        JSON.readTree(
            "{\"numRecords\":5,\"minValues\":{\"id\":-7,\"at\":\"2023-12-31T23:00:00.000+00:00\"},"
                + "\"maxValues\":{\"id\":5,\"at\":\"2024-01-03T01:00:00.000+01:00\"},"
                + "\"nullCount\":{}}"),
        merged);
    assertNull(StatsMerge.merge(Arrays.asList(a, null), schema), "a file without stats");
    assertNull(StatsMerge.merge(List.of(a, "{\"minValues\":{}}"), schema), "without numRecords");
  }

  private String statsOf(List<Struct> rows) throws IOException {
    Path file = new Path(dir.resolve("f" + System.nanoTime() + ".parquet").toUri());
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            new Configuration(), file, ROW, Set.of(), CompressionCodecName.UNCOMPRESSED)) {
      for (Struct row : rows) {
        w.write(row);
      }
      return w.finish().statsJson();
    }
  }

  private static Struct row(Random random) {
    Struct inner = random.nextInt(4) == 0 ? null : new Struct(INNER).put("a", random.nextLong());
    if (inner != null && random.nextBoolean()) {
      inner.put("s", text(random));
    }
    return new Struct(ROW)
        .put("i32", random.nextInt(5) == 0 ? null : random.nextInt(2001) - 1000)
        .put("i64", random.nextInt(10) == 0 ? Long.MIN_VALUE : random.nextLong())
        .put("f64", random.nextInt(5) == 0 ? null : random.nextGaussian() * 1e6)
        .put("str", random.nextInt(5) == 0 ? null : text(random))
        .put(
            "dec",
            random.nextInt(5) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000) - 50_000, 2))
        .put(
            "date",
            random.nextInt(5) == 0
                ? null
                : new java.util.Date(86_400_000L * random.nextInt(40_000)))
        .put(
            "ts",
            random.nextInt(5) == 0
                ? null
                : new java.util.Date(random.nextLong() % 4_000_000_000_000L))
        .put("inner", inner)
        .put("tags", random.nextBoolean() ? null : List.of(text(random)));
  }

  /** Short or longer than the 32-character prefix stats keep; ASCII and beyond. */
  private static String text(Random random) {
    int length = random.nextInt(4) == 0 ? 30 + random.nextInt(10) : random.nextInt(6);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.appendCodePoint(
          random.nextInt(8) == 0 ? 0x4e00 + random.nextInt(50) : 'a' + random.nextInt(4));
    }
    return s.toString();
  }
}
