package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaStatsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir java.nio.file.Path dir;

  /** The text of the last stats, for values a double cannot show. */
  private String lastJson;

  private JsonNode stats(Schema schema, Set<String> excluded, Consumer<ParquetFileWriter> writes)
      throws IOException {
    Path file = new Path(dir.resolve("f" + System.nanoTime() + ".parquet").toUri());
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            new Configuration(), file, schema, excluded, CompressionCodecName.SNAPPY)) {
      writes.accept(w);
      lastJson = w.finish().statsJson();
      return JSON.readTree(lastJson);
    }
  }

  private static void write(ParquetFileWriter w, Struct s) {
    try {
      w.write(s);
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  private static java.util.Date at(String instant) {
    return java.util.Date.from(Instant.parse(instant));
  }

  @Test
  void scalarColumns() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("i8", Schema.INT8_SCHEMA)
            .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
            .field("i64", Schema.INT64_SCHEMA)
            .field("f32", Schema.FLOAT32_SCHEMA)
            .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("str", Schema.OPTIONAL_STRING_SCHEMA)
            .field(
                "dec",
                Decimal.builder(2).parameter("connect.decimal.precision", "30").optional().build())
            .field("date", Date.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("time", Time.SCHEMA)
            .field("bool", Schema.BOOLEAN_SCHEMA)
            .field("bin", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("allnull", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    JsonNode st =
        stats(
            s,
            Set.of(),
            w -> {
              write(
                  w,
                  new Struct(s)
                      .put("i8", (byte) -3)
                      .put("i32", 10)
                      .put("i64", 5L)
                      .put("f32", 0.1f)
                      .put("f64", 2.5)
                      .put("str", "pear")
                      .put("dec", new BigDecimal("-10.50"))
                      .put("date", at("2024-03-01T00:00:00Z"))
                      .put("ts", at("2024-01-02T03:04:05.678Z"))
                      .put("time", new java.util.Date(1000))
                      .put("bool", true)
                      .put("bin", new byte[] {1}));
              write(
                  w,
                  new Struct(s)
                      .put("i8", (byte) 7)
                      .put("i64", -5L)
                      .put("f32", -0.5f)
                      .put("str", "apple")
                      .put("date", at("1969-12-31T00:00:00Z"))
                      .put("ts", at("1999-12-31T23:59:59.999Z"))
                      .put("time", new java.util.Date(86_399_999))
                      .put("bool", false));
              write(
                  w,
                  new Struct(s)
                      .put("i8", (byte) 0)
                      .put("i32", -20)
                      .put("i64", 0L)
                      .put("f32", 3f)
                      .put("f64", -1e300)
                      .put("str", "zebra")
                      .put("dec", new BigDecimal("12345678901234567890.25"))
                      .put("date", at("2024-03-02T00:00:00Z"))
                      .put("ts", at("2030-01-01T00:00:00Z"))
                      .put("time", new java.util.Date(0))
                      .put("bool", true));
            });
    JsonNode expected =
        JSON.readTree(
            "{\"numRecords\":3,"
                + "\"minValues\":{\"i8\":-3,\"i32\":-20,\"i64\":-5,\"f32\":-0.5,\"f64\":-1.0E300,\"str\":\"apple\","
                + "\"dec\":-10.50,\"date\":\"1969-12-31\",\"ts\":\"1999-12-31T23:59:59.999Z\",\"time\":0},"
                + "\"maxValues\":{\"i8\":7,\"i32\":10,\"i64\":5,\"f32\":3.0,\"f64\":2.5,\"str\":\"zebra\","
                + "\"dec\":12345678901234567890.25,\"date\":\"2024-03-02\",\"ts\":\"2030-01-01T00:00:00.000Z\",\"time\":86399999},"
                + "\"nullCount\":{\"i8\":0,\"i32\":1,\"i64\":0,\"f32\":0,\"f64\":1,\"str\":0,\"dec\":1,\"date\":0,\"ts\":0,"
                + "\"time\":0,\"bool\":0,\"bin\":2,\"allnull\":3}}");
    assertEquals(expected, st);
    assertTrue(lastJson.contains("\"dec\":12345678901234567890.25,"), lastJson);
  }

  @Test
  void floatMinMaxAreWrittenWithoutWideningNoise() throws IOException {
    Schema s = SchemaBuilder.struct().field("f", Schema.FLOAT32_SCHEMA).build();
    Path file = new Path(dir.resolve("float.parquet").toUri());
    try (ParquetFileWriter w =
        new ParquetFileWriter(
            new Configuration(), file, s, Set.of(), CompressionCodecName.SNAPPY)) {
      w.write(new Struct(s).put("f", 0.1f));
      String json = w.finish().statsJson();
      assertTrue(json.contains("\"minValues\":{\"f\":0.1}"), json);
    }
  }

  @Test
  void nanOrInfinityDropsMinMaxButKeepsNullCount() throws IOException {
    Schema s =
        SchemaBuilder.struct()
            .field("d", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("f", Schema.FLOAT32_SCHEMA)
            .field("ok", Schema.FLOAT64_SCHEMA)
            .build();
    JsonNode st =
        stats(
            s,
            Set.of(),
            w -> {
              write(w, new Struct(s).put("d", 1.0).put("f", 1f).put("ok", 1.0));
              write(
                  w,
                  new Struct(s)
                      .put("d", Double.NaN)
                      .put("f", Float.NEGATIVE_INFINITY)
                      .put("ok", 2.0));
              write(w, new Struct(s).put("f", 0f).put("ok", 3.0));
            });
    assertEquals(JSON.readTree("{\"ok\":1.0}"), st.get("minValues"));
    assertEquals(JSON.readTree("{\"ok\":3.0}"), st.get("maxValues"));
    assertEquals(JSON.readTree("{\"d\":1,\"f\":0,\"ok\":0}"), st.get("nullCount"));
  }

  @Test
  void nestedStructsAndContainers() throws IOException {
    Schema inner =
        SchemaBuilder.struct()
            .field("a", Schema.INT32_SCHEMA)
            .field("b", Schema.OPTIONAL_STRING_SCHEMA)
            .optional()
            .build();
    Schema s =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("in", inner)
            .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build())
            .field(
                "map",
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .field(
                "onlybin",
                SchemaBuilder.struct()
                    .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
                    .optional()
                    .build())
            .build();
    JsonNode st =
        stats(
            s,
            Set.of(),
            w -> {
              write(
                  w,
                  new Struct(s)
                      .put("id", 1L)
                      .put("in", new Struct(inner).put("a", 5).put("b", "x"))
                      .put("arr", List.of(100, -100))
                      .put("map", Map.of("k", "v")));
              write(w, new Struct(s).put("id", 2L));
              write(
                  w,
                  new Struct(s)
                      .put("id", 3L)
                      .put("in", new Struct(inner).put("a", -5))
                      .put("arr", List.of()));
            });
    assertEquals(JSON.readTree("{\"id\":1,\"in\":{\"a\":-5,\"b\":\"x\"}}"), st.get("minValues"));
    assertEquals(JSON.readTree("{\"id\":3,\"in\":{\"a\":5,\"b\":\"x\"}}"), st.get("maxValues"));
    // a null struct makes every leaf under it null
    assertEquals(
        JSON.readTree(
            "{\"id\":0,\"in\":{\"a\":1,\"b\":2},\"arr\":1,\"map\":2,\"onlybin\":{\"raw\":3}}"),
        st.get("nullCount"));
  }

  @Test
  void longStringsAreTruncatedAndMaxStaysAbove() throws IOException {
    Schema s = SchemaBuilder.struct().field("s", Schema.STRING_SCHEMA).build();
    String low = "m".repeat(31) + "😀" + "low-tail";
    String high = "z".repeat(40);
    String highest = "z".repeat(32) + "\u00E9" + "more";
    List<String> values = List.of(low, high, highest, "n");
    JsonNode st = stats(s, Set.of(), w -> values.forEach(v -> write(w, new Struct(s).put("s", v))));
    String min = st.get("minValues").get("s").asText();
    String max = st.get("maxValues").get("s").asText();
    assertEquals("m".repeat(31) + "😀", min, "the prefix keeps the whole surrogate pair");
    assertEquals("z".repeat(32) + new String(Character.toChars(0x10FFFF)), max);
    for (String v : values) {
      byte[] b = v.getBytes(StandardCharsets.UTF_8);
      assertTrue(Arrays.compareUnsigned(min.getBytes(StandardCharsets.UTF_8), b) <= 0, v);
      assertTrue(Arrays.compareUnsigned(max.getBytes(StandardCharsets.UTF_8), b) >= 0, v);
    }
  }

  @Test
  void stringsAreEscapedInJson() throws IOException {
    Schema s = SchemaBuilder.struct().field("we\"ird\\name", Schema.STRING_SCHEMA).build();
    JsonNode st =
        stats(
            s,
            Set.of(),
            w -> write(w, new Struct(s).put("we\"ird\\name", "line\nbreak \"q\" \u0001")));
    assertEquals("line\nbreak \"q\" \u0001", st.get("minValues").get("we\"ird\\name").asText());
  }

  @Test
  void onlyTheFirst32LeafColumnsDepthFirst() throws IOException {
    SchemaBuilder b = SchemaBuilder.struct();
    for (int i = 0; i < 30; i++) {
      b.field("c" + i, Schema.INT32_SCHEMA);
    }
    Schema nested =
        SchemaBuilder.struct()
            .field("n0", Schema.INT32_SCHEMA)
            .field("n1", Schema.INT32_SCHEMA)
            .field("n2", Schema.INT32_SCHEMA)
            .build();
    b.field("nested", nested);
    b.field("after", Schema.INT32_SCHEMA);
    Schema s = b.build();
    JsonNode st =
        stats(
            s,
            Set.of(),
            w -> {
              Struct v =
                  new Struct(s)
                      .put("nested", new Struct(nested).put("n0", 1).put("n1", 1).put("n2", 1))
                      .put("after", 1);
              for (int i = 0; i < 30; i++) {
                v.put("c" + i, i);
              }
              write(w, v);
            });
    for (String section : List.of("minValues", "maxValues", "nullCount")) {
      JsonNode node = st.get(section);
      List<String> names = fieldNames(node);
      assertEquals(31, names.size(), section + " " + names);
      assertEquals("c29", names.get(29));
      assertEquals("nested", names.get(30));
      assertEquals(List.of("n0", "n1"), fieldNames(node.get("nested")), section);
      assertFalse(node.has("after"));
    }
  }

  @Test
  void excludedColumnsDoNotCountTowardsTheLimit() throws IOException {
    SchemaBuilder b = SchemaBuilder.struct().field("part", Schema.STRING_SCHEMA);
    for (int i = 0; i < 32; i++) {
      b.field("c" + i, Schema.INT64_SCHEMA);
    }
    Schema s = b.build();
    JsonNode st =
        stats(
            s,
            Set.of("part"),
            w -> {
              Struct v = new Struct(s).put("part", "p");
              for (int i = 0; i < 32; i++) {
                v.put("c" + i, (long) i);
              }
              write(w, v);
            });
    List<String> names = fieldNames(st.get("maxValues"));
    assertEquals(32, names.size(), names.toString());
    assertFalse(names.contains("part"));
    assertEquals(31, st.get("maxValues").get("c31").asLong());
  }

  @Test
  void emptyFileHasEmptySections() throws IOException {
    Schema s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
    JsonNode st = stats(s, Set.of(), w -> {});
    assertEquals(
        JSON.readTree(
            "{\"numRecords\":0,\"minValues\":{},\"maxValues\":{},\"nullCount\":{\"a\":0}}"),
        st);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }
}
