package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

class GenerationExpressionTest {
  private static String eval(String sql, Object value) {
    GenerationExpression e = GenerationExpression.parse(sql);
    assertTrue(e != null, "parses: " + sql);
    return e.partitionValue(value);
  }

  private static Date at(String instant) {
    return Date.from(Instant.parse(instant));
  }

  @Test
  void theFormsSparkUsersPartitionByAreReadAndWrittenBack() {
    for (String[] form :
        new String[][] {
          {"CAST(event_time AS DATE)", "CAST(event_time AS DATE)"},
          {"cast( `event_time` as date )", "CAST(event_time AS DATE)"},
          {"YEAR(ts)", "YEAR(ts)"},
          {"month(ts)", "MONTH(ts)"},
          {"DAYOFMONTH(ts)", "DAY(ts)"},
          {"hour(`ts`)", "HOUR(ts)"},
          {"date_format(ts, 'yyyy-MM-dd-HH')", "DATE_FORMAT(ts, 'yyyy-MM-dd-HH')"},
          {"SUBSTR(sku, 1, 4)", "SUBSTRING(sku, 1, 4)"},
          {"`tenant-id` - pmod(`tenant-id`, 10)", "`tenant-id` - PMOD(`tenant-id`, 10)"},
        }) {
      GenerationExpression e = GenerationExpression.parse(form[0]);
      assertEquals(form[1], e == null ? null : e.sql(), form[0]);
      assertEquals(e, GenerationExpression.parse(e.sql()), "its own text parses to itself");
    }
  }

  @Test
  void otherExpressionsAreNotComputed() {
    for (String sql :
        new String[] {
          "id + 1",
          "CAST(ts AS STRING)",
          "UPPER(name)",
          "DATE_FORMAT(ts, 'EEE')",
          "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')",
          "SUBSTRING(s, -2, 1)",
          "SUBSTRING(s, 1, 0)",
          "a - PMOD(b, 10)",
          "YEAR(ts) + 1",
          "CAST(ts AS DATE",
          "'unterminated",
          ""
        }) {
      assertNull(GenerationExpression.parse(sql), sql);
    }
  }

  @Test
  void timeFormsAreTheUtcFieldsOfTheTimestamp() {
    Date t = at("2024-02-29T23:59:59.999Z");
    assertEquals("2024-02-29", eval("CAST(ts AS DATE)", t));
    assertEquals("2024", eval("YEAR(ts)", t));
    assertEquals("2", eval("MONTH(ts)", t));
    assertEquals("29", eval("DAY(ts)", t));
    assertEquals("23", eval("HOUR(ts)", t));
    assertEquals("2024-02-29-23", eval("DATE_FORMAT(ts, 'yyyy-MM-dd-HH')", t));
    assertEquals("2024-02", eval("DATE_FORMAT(ts, 'yyyy-MM')", t));
    assertEquals("2024/02/29 23", eval("DATE_FORMAT(ts, 'yyyy/MM/dd HH')", t));
    // Before the epoch: floor, not truncation toward zero.
    Date before = at("1969-12-31T23:30:00.001Z");
    assertEquals("1969-12-31", eval("CAST(ts AS DATE)", before));
    assertEquals("23", eval("HOUR(ts)", before));
    // A Connect Date is midnight UTC.
    assertEquals("0", eval("HOUR(d)", at("2000-01-01T00:00:00Z")));
    assertNull(eval("CAST(ts AS DATE)", null));
  }

  @Test
  void substringCountsCharactersFromOneAndTruncationFloorsToTheWidth() {
    assertEquals("abcd", eval("SUBSTRING(s, 1, 4)", "abcdefg"));
    assertEquals("abcd", eval("SUBSTRING(s, 0, 4)", "abcdefg"), "0 counts as 1");
    assertEquals("cde", eval("SUBSTRING(s, 3, 3)", "abcdefg"));
    assertEquals("ab", eval("SUBSTRING(s, 1, 4)", "ab"));
    assertEquals("", eval("SUBSTRING(s, 5, 4)", "ab"));
    assertEquals("😀é", eval("SUBSTRING(s, 1, 2)", "😀éz"), "code points, not UTF-16 units");
    assertEquals("20", eval("n - PMOD(n, 10)", 27L));
    assertEquals("-30", eval("n - PMOD(n, 10)", -27), "down, also below zero");
    assertEquals("0", eval("n - PMOD(n, 10)", (short) 0));
  }

  @Test
  void configTransformsBecomeTheseExpressions() {
    var day = GenerationExpression.Transform.parse("day(event_time)");
    assertEquals("event_time_day", day.column());
    assertEquals("CAST(event_time AS DATE)", GenerationExpression.ofTransform(day, false).sql());
    var named = GenerationExpression.Transform.parse(" event_hour = hour( event_time ) ");
    assertEquals("event_hour", named.column());
    assertEquals(
        "DATE_FORMAT(event_time, 'yyyy-MM-dd-HH')",
        GenerationExpression.ofTransform(named, false).sql());
    var trunc = GenerationExpression.Transform.parse("truncate(sku, 4)");
    assertEquals("sku_trunc", trunc.column());
    assertEquals("SUBSTRING(sku, 1, 4)", GenerationExpression.ofTransform(trunc, true).sql());
    assertEquals("sku - PMOD(sku, 4)", GenerationExpression.ofTransform(trunc, false).sql());
    assertNull(GenerationExpression.Transform.parse("region"));
    assertThrows(
        IllegalArgumentException.class, () -> GenerationExpression.Transform.parse("week(ts)"));
    assertThrows(
        IllegalArgumentException.class, () -> GenerationExpression.Transform.parse("truncate(s)"));
    assertThrows(
        IllegalArgumentException.class, () -> GenerationExpression.Transform.parse("day(a, 2)"));
  }

  @Test
  void typesFollowSpark() {
    GenerationExpression day = GenerationExpression.parse("CAST(ts AS DATE)");
    assertEquals(PrimitiveType.DATE, day.resultType(PrimitiveType.TIMESTAMP));
    assertEquals(PrimitiveType.DATE, day.resultType(PrimitiveType.TIMESTAMP_NTZ));
    assertNull(day.resultType(PrimitiveType.STRING));
    assertEquals(
        PrimitiveType.INTEGER,
        GenerationExpression.parse("HOUR(ts)").resultType(PrimitiveType.DATE));
    assertEquals(
        PrimitiveType.LONG,
        GenerationExpression.parse("n - PMOD(n, 3)").resultType(PrimitiveType.LONG));
    assertTrue(day.accepts(Timestamp.SCHEMA));
    assertTrue(!day.accepts(Schema.STRING_SCHEMA));
  }
}
