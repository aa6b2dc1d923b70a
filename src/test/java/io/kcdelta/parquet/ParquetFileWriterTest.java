package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.testutil.ParquetRows;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetFileWriterTest {
  @TempDir java.nio.file.Path dir;

  private final Configuration conf = new Configuration();

  static Schema decimal(int precision, int scale) {
    return Decimal.builder(scale)
        .parameter("connect.decimal.precision", Integer.toString(precision))
        .build();
  }

  static final Schema POINT =
      SchemaBuilder.struct()
          .field("x", Schema.INT32_SCHEMA)
          .field("label", Schema.OPTIONAL_STRING_SCHEMA)
          .optional()
          .build();

  static final Schema ALL =
      SchemaBuilder.struct()
          .field("i8", Schema.INT8_SCHEMA)
          .field("i16", Schema.INT16_SCHEMA)
          .field("i32", Schema.INT32_SCHEMA)
          .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
          .field("f32", Schema.FLOAT32_SCHEMA)
          .field("f64", Schema.FLOAT64_SCHEMA)
          .field("bool", Schema.BOOLEAN_SCHEMA)
          .field("str", Schema.OPTIONAL_STRING_SCHEMA)
          .field("bin", Schema.OPTIONAL_BYTES_SCHEMA)
          .field("dec9", decimal(9, 2))
          .field("dec18", decimal(18, 4))
          .field("dec38", decimal(38, 6))
          .field("date", Date.SCHEMA)
          .field("ts", Timestamp.SCHEMA)
          .field("time", Time.SCHEMA)
          .field("point", POINT)
          .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
          .field("points", SchemaBuilder.array(POINT).build())
          .field(
              "attrs",
              SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).build())
          .build();

  private Path path(String name) {
    return new Path(dir.resolve(name).toUri());
  }

  private static java.util.Date at(String instant) {
    return java.util.Date.from(Instant.parse(instant));
  }

  static Struct sample(Schema schema) {
    Map<String, Long> attrs = new LinkedHashMap<>();
    attrs.put("a", 1L);
    attrs.put("b", null);
    return new Struct(schema)
        .put("i8", (byte) -8)
        .put("i16", (short) 1600)
        .put("i32", 320_000)
        .put("i64", 6_400_000_000L)
        .put("f32", 1.5f)
        .put("f64", -2.25d)
        .put("bool", true)
        .put("str", "héllo ✓ 😀")
        .put("bin", new byte[] {0, 1, (byte) 0xFF})
        .put("dec9", new BigDecimal("-1234567.89"))
        .put("dec18", new BigDecimal("12345678901234.5678"))
        .put("dec38", new BigDecimal("-12345678901234567890123456789012.123456"))
        .put("date", at("2024-02-29T00:00:00Z"))
        .put("ts", at("2024-01-02T03:04:05.678Z"))
        .put("time", new java.util.Date(3_723_004L))
        .put("point", new Struct(POINT).put("x", 7).put("label", "p"))
        .put("tags", Arrays.asList("t1", null, "t3"))
        .put(
            "points",
            List.of(
                new Struct(POINT).put("x", 1), new Struct(POINT).put("x", 2).put("label", "two")))
        .put("attrs", attrs);
  }

  @Test
  void roundTripsEveryType() throws IOException {
    Path file = path("all.parquet");
    Struct full = sample(ALL);
    Struct sparse =
        new Struct(ALL)
            .put("i8", (byte) 1)
            .put("i16", (short) 2)
            .put("i32", 3)
            .put("f32", 0f)
            .put("f64", 0d)
            .put("bool", false)
            .put("dec9", new BigDecimal("0.01"))
            .put("dec18", new BigDecimal("-0.0001"))
            .put("dec38", new BigDecimal("1.000000"))
            .put("date", at("1969-12-31T00:00:00Z"))
            .put("ts", at("1960-06-01T12:00:00.001Z"))
            .put("time", new java.util.Date(0))
            .put("bin", ByteBuffer.wrap(new byte[] {9, 8, 7, 6}, 1, 2))
            .put("points", List.of())
            .put("attrs", Map.of());
    DataFile df;
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, ALL, Set.of(), CompressionCodecName.SNAPPY)) {
      w.write(full);
      w.write(sparse);
      assertEquals(2, w.numRecords());
      df = w.finish();
    }
    assertEquals(file, df.path());
    assertEquals(2, df.numRecords());
    assertEquals(Files.size(dir.resolve("all.parquet")), df.sizeBytes());

    List<Group> rows = ParquetRows.read(conf, file);
    assertEquals(2, rows.size());
    Group g = rows.get(0);
    assertEquals(-8, g.getInteger("i8", 0));
    assertEquals(1600, g.getInteger("i16", 0));
    assertEquals(320_000, g.getInteger("i32", 0));
    assertEquals(6_400_000_000L, g.getLong("i64", 0));
    assertEquals(1.5f, g.getFloat("f32", 0));
    assertEquals(-2.25d, g.getDouble("f64", 0));
    assertTrue(g.getBoolean("bool", 0));
    assertEquals("héllo ✓ 😀", g.getString("str", 0));
    assertArrayEquals(new byte[] {0, 1, (byte) 0xFF}, g.getBinary("bin", 0).getBytes());
    assertEquals(-123456789, g.getInteger("dec9", 0));
    assertEquals(123456789012345678L, g.getLong("dec18", 0));
    byte[] fixed = g.getBinary("dec38", 0).getBytes();
    assertEquals(16, fixed.length);
    assertEquals(
        new BigDecimal("-12345678901234567890123456789012.123456"),
        new BigDecimal(new BigInteger(fixed), 6));
    assertEquals(19782, g.getInteger("date", 0)); // 2024-02-29
    assertEquals(
        Instant.parse("2024-01-02T03:04:05.678Z").toEpochMilli() * 1000, g.getLong("ts", 0));
    assertEquals(3_723_004, g.getInteger("time", 0));
    Group point = g.getGroup("point", 0);
    assertEquals(7, point.getInteger("x", 0));
    assertEquals("p", point.getString("label", 0));
    Group tags = g.getGroup("tags", 0);
    assertEquals(3, tags.getFieldRepetitionCount("list"));
    assertEquals("t1", tags.getGroup("list", 0).getString("element", 0));
    assertEquals(0, tags.getGroup("list", 1).getFieldRepetitionCount("element"), "null element");
    assertEquals("t3", tags.getGroup("list", 2).getString("element", 0));
    Group points = g.getGroup("points", 0);
    assertEquals(2, points.getFieldRepetitionCount("list"));
    Group p0 = points.getGroup("list", 0).getGroup("element", 0);
    assertEquals(1, p0.getInteger("x", 0));
    assertEquals(0, p0.getFieldRepetitionCount("label"));
    assertEquals("two", points.getGroup("list", 1).getGroup("element", 0).getString("label", 0));
    Group attrs = g.getGroup("attrs", 0);
    assertEquals(2, attrs.getFieldRepetitionCount("key_value"));
    assertEquals("a", attrs.getGroup("key_value", 0).getString("key", 0));
    assertEquals(1L, attrs.getGroup("key_value", 0).getLong("value", 0));
    assertEquals("b", attrs.getGroup("key_value", 1).getString("key", 0));
    assertEquals(0, attrs.getGroup("key_value", 1).getFieldRepetitionCount("value"));

    Group s = rows.get(1);
    assertEquals(0, s.getFieldRepetitionCount("i64"));
    assertEquals(0, s.getFieldRepetitionCount("str"));
    assertEquals(0, s.getFieldRepetitionCount("point"));
    assertEquals(0, s.getFieldRepetitionCount("tags"));
    assertArrayEquals(new byte[] {8, 7}, s.getBinary("bin", 0).getBytes());
    assertEquals(1, s.getInteger("dec9", 0));
    assertEquals(-1L, s.getLong("dec18", 0));
    assertEquals(
        new BigDecimal("1.000000"),
        new BigDecimal(new BigInteger(s.getBinary("dec38", 0).getBytes()), 6));
    assertEquals(-1, s.getInteger("date", 0));
    assertEquals(
        Instant.parse("1960-06-01T12:00:00.001Z").toEpochMilli() * 1000, s.getLong("ts", 0));
    assertEquals(0, s.getInteger("time", 0));
    assertEquals(0, s.getGroup("points", 0).getFieldRepetitionCount("list"), "empty list");
    assertEquals(0, s.getGroup("attrs", 0).getFieldRepetitionCount("key_value"), "empty map");
  }

  @Test
  void fileSchemaCarriesTheAnnotations() throws IOException {
    Path file = path("schema.parquet");
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, ALL, Set.of(), CompressionCodecName.ZSTD)) {
      w.write(sample(ALL));
      w.finish();
    }
    MessageType schema = ParquetRows.schema(conf, file);
    assertEquals(DeltaSchemas.toParquet(ALL, Set.of()), schema);
    assertEquals(
        LogicalTypeAnnotation.intType(8, true), schema.getType("i8").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.intType(16, true), schema.getType("i16").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.stringType(), schema.getType("str").getLogicalTypeAnnotation());
    assertEquals(null, schema.getType("bin").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.decimalType(6, 38),
        schema.getType("dec38").getLogicalTypeAnnotation());
    assertEquals(
        PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
        schema.getType("dec38").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(
        PrimitiveTypeName.INT32, schema.getType("dec9").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(
        PrimitiveTypeName.INT64, schema.getType("dec18").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(
        LogicalTypeAnnotation.dateType(), schema.getType("date").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS),
        schema.getType("ts").getLogicalTypeAnnotation());
    assertEquals(null, schema.getType("time").getLogicalTypeAnnotation(), "no TIME annotation");
    assertEquals(
        LogicalTypeAnnotation.listType(), schema.getType("tags").getLogicalTypeAnnotation());
    assertEquals(
        LogicalTypeAnnotation.mapType(), schema.getType("attrs").getLogicalTypeAnnotation());
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      assertEquals(
          CompressionCodecName.ZSTD,
          reader.getFooter().getBlocks().get(0).getColumns().get(0).getCodec());
    }
  }

  @Test
  void excludedFieldsAreNotWritten() throws IOException {
    Schema s =
        SchemaBuilder.struct().field("day", Date.SCHEMA).field("v", Schema.STRING_SCHEMA).build();
    Path file = path("excluded.parquet");
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, s, Set.of("day"), CompressionCodecName.UNCOMPRESSED)) {
      w.write(new Struct(s).put("day", at("2024-01-01T00:00:00Z")).put("v", "x"));
      w.finish();
    }
    MessageType schema = ParquetRows.schema(conf, file);
    assertEquals(1, schema.getFieldCount());
    assertEquals("x", ParquetRows.read(conf, file).get(0).getString("v", 0));
  }

  @Test
  void rejectedRecordsLeaveTheFileIntact() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("id", Schema.INT32_SCHEMA)
            .field("amount", decimal(10, 2))
            .field("inner", POINT)
            .field("list", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .build();
    Path file = path("rejects.parquet");
    DataFile df;
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, s, Set.of(), CompressionCodecName.SNAPPY)) {
      w.write(new Struct(s).put("id", 1).put("amount", new BigDecimal("1.00")));

      DataException scale =
          assertThrows(
              DataException.class,
              () -> w.write(new Struct(s).put("id", 2).put("amount", new BigDecimal("1.005"))));
      assertTrue(
          scale.getMessage().contains("'amount'") && scale.getMessage().contains("scale 3"),
          scale.getMessage());

      DataException precision =
          assertThrows(
              DataException.class,
              () ->
                  w.write(
                      new Struct(s).put("id", 3).put("amount", new BigDecimal("123456789.00"))));
      assertTrue(precision.getMessage().contains("'amount'"), precision.getMessage());

      // Struct.put checks types deeply but not required fields: a missing one gets here
      Struct missingRequired = new Struct(s).put("amount", new BigDecimal("6.00"));
      DataException required = assertThrows(DataException.class, () -> w.write(missingRequired));
      assertTrue(required.getMessage().contains("'id'"), required.getMessage());

      w.write(
          new Struct(s)
              .put("id", 7)
              .put("amount", new BigDecimal("7.00"))
              .put("inner", new Struct(POINT).put("x", 70))
              .put("list", List.of("z")));
      assertThrows(
          DataException.class,
          () -> w.write(new Struct(s).put("id", 8).put("amount", new BigDecimal("1.1"))));
      assertEquals(2, w.numRecords());
      df = w.finish();
    }
    assertEquals(2, df.numRecords());
    List<Group> rows = ParquetRows.read(conf, file);
    assertEquals(2, rows.size());
    assertEquals(1, rows.get(0).getInteger("id", 0));
    assertEquals(100L, rows.get(0).getLong("amount", 0));
    assertEquals(7, rows.get(1).getInteger("id", 0));
    assertEquals(70, rows.get(1).getGroup("inner", 0).getInteger("x", 0));
    assertTrue(
        df.statsJson().contains("\"maxValues\":{\"id\":7,\"amount\":7.00,\"inner\":{\"x\":70}"),
        df.statsJson());
  }

  @Test
  void acceptsEqualSchemaInstancesAndRejectsOtherLayouts() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("a", Schema.INT32_SCHEMA)
            .field("b", Schema.STRING_SCHEMA)
            .build();
    Schema twin =
        SchemaBuilder.struct()
            .field("a", Schema.INT32_SCHEMA)
            .field("b", Schema.STRING_SCHEMA)
            .build();
    Schema other =
        SchemaBuilder.struct()
            .field("b", Schema.STRING_SCHEMA)
            .field("a", Schema.INT32_SCHEMA)
            .build();
    Path file = path("twins.parquet");
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, s, Set.of(), CompressionCodecName.SNAPPY)) {
      w.write(new Struct(s).put("a", 1).put("b", "x"));
      w.write(new Struct(twin).put("a", 2).put("b", "y"));
      assertThrows(DataException.class, () -> w.write(new Struct(other).put("a", 3).put("b", "z")));
      w.finish();
    }
    List<Group> rows = ParquetRows.read(conf, file);
    assertEquals(2, rows.size());
    assertEquals("y", rows.get(1).getString("b", 0));
  }

  @Test
  void neverOverwritesAnExistingFile() throws IOException {
    Files.writeString(dir.resolve("taken.parquet"), "not ours");
    Schema s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    assertThrows(
        IOException.class,
        () ->
            new ParquetFileWriter(
                conf, path("taken.parquet"), s, Set.of(), CompressionCodecName.SNAPPY));
    assertEquals(
        "not ours", Files.readString(dir.resolve("taken.parquet"), StandardCharsets.UTF_8));
  }

  @Test
  void abortDeletesAndCloseAfterFinishKeeps() throws IOException {
    Schema s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    ParquetFileWriter aborted =
        new ParquetFileWriter(
            conf, path("aborted.parquet"), s, Set.of(), CompressionCodecName.SNAPPY);
    aborted.write(new Struct(s).put("a", 1));
    aborted.abort();
    aborted.abort(); // idempotent, never throws
    assertFalse(Files.exists(dir.resolve("aborted.parquet")));
    assertThrows(IllegalStateException.class, () -> aborted.write(new Struct(s).put("a", 2)));

    try (ParquetFileWriter unfinished =
        new ParquetFileWriter(
            conf, path("unfinished.parquet"), s, Set.of(), CompressionCodecName.SNAPPY)) {
      unfinished.write(new Struct(s).put("a", 1));
    }
    assertFalse(Files.exists(dir.resolve("unfinished.parquet")), "close without finish aborts");

    try (ParquetFileWriter kept =
        new ParquetFileWriter(
            conf, path("kept.parquet"), s, Set.of(), CompressionCodecName.SNAPPY)) {
      kept.write(new Struct(s).put("a", 1));
      kept.finish();
    }
    assertTrue(Files.exists(dir.resolve("kept.parquet")), "close after finish keeps the file");
    assertEquals(1, ParquetRows.read(conf, path("kept.parquet")).size());
  }

  @Test
  void dataSizeGrowsWithRecords() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("a", Schema.INT64_SCHEMA)
            .field("b", Schema.STRING_SCHEMA)
            .build();
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            conf, path("size.parquet"), s, Set.of(), CompressionCodecName.UNCOMPRESSED)) {
      long before = w.dataSize();
      for (long i = 0; i < 10_000; i++) {
        w.write(new Struct(s).put("a", i).put("b", "value-" + i));
      }
      long after = w.dataSize();
      assertTrue(after > before + 10_000, before + " -> " + after);
      assertThrows(DataException.class, () -> w.write(null));
      DataFile df = w.finish();
      assertEquals(df.sizeBytes(), w.dataSize(), "after finish the size is the file's");
      assertEquals(10_000, df.numRecords());
      assertEquals(10_000, ParquetRows.read(conf, df.path()).size());
    }
  }

  @Test
  void reachedTurnsTrueWithinTwoRowsOfTheFileReachingTheSize() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("text", Schema.STRING_SCHEMA)
            .build();
    long max = 256 * 1024;
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            conf, path("rolls.parquet"), s, Set.of(), CompressionCodecName.UNCOMPRESSED)) {
      long firstRowAtSize = -1;
      long rows = 0;
      while (true) {
        // Distinct text: the size grows with every row.
        w.write(new Struct(s).put("id", rows).put("text", "row " + rows + " " + "x".repeat(90)));
        rows++;
        if (firstRowAtSize < 0 && w.dataSize() >= max) {
          firstRowAtSize = rows;
        }
        if (w.reached(max)) {
          break;
        }
        assertTrue(rows < 100_000, "never reached " + max + " bytes");
      }
      assertTrue(w.dataSize() >= max);
      assertTrue(firstRowAtSize > 0 && rows >= firstRowAtSize, rows + " vs " + firstRowAtSize);
      // Each check looks half the remaining rows ahead: the last one is at most a row or two late.
      assertTrue(
          rows - firstRowAtSize <= 2, rows + " rows, the size was there at " + firstRowAtSize);
    }
  }
}
