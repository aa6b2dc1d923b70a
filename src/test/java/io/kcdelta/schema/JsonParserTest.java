package io.kcdelta.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class JsonParserTest {
  @Test
  void valuesComeOutAsJsonConverterGivesThemWithExactDecimals() {
    Object v =
        JsonParser.parse(
            " {\"a\": 1, \"b\": -2.50, \"c\": \"x\\\"y\\u00e9\\n\", \"d\": [true, false, null],"
                + " \"e\": {}, \"f\": 1e3, \"g\": 92233720368547758070} ");
    Map<?, ?> m = (Map<?, ?>) v;
    assertEquals(List.of("a", "b", "c", "d", "e", "f", "g"), List.copyOf(m.keySet()), "in order");
    assertEquals(1L, m.get("a"));
    assertEquals(new BigDecimal("-2.50"), m.get("b"), "the digits as written");
    assertEquals("x\"yé\n", m.get("c"));
    assertEquals(Arrays.asList(true, false, null), m.get("d"));
    assertEquals(Map.of(), m.get("e"));
    assertEquals(new BigDecimal("1e3"), m.get("f"));
    assertEquals(new BigInteger("92233720368547758070"), m.get("g"));
    assertEquals(Long.MIN_VALUE, JsonParser.parse("-9223372036854775808"));
    assertNull(JsonParser.parse("null"));
  }

  @Test
  void anythingButOneJsonValueIsRefusedSayingWhere() {
    for (String bad :
        List.of(
            "",
            "{",
            "{\"a\":}",
            "{a:1}",
            "[1,]",
            "{\"a\":1} x",
            "01",
            "1.",
            "-",
            "\"\\x\"",
            "\"abc",
            "tru",
            "{\"a\" 1}",
            "[1 2]",
            "\"a\u0001\"")) {
      DataException e = assertThrows(DataException.class, () -> JsonParser.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("not JSON: "), e.getMessage());
      assertTrue(e.getMessage().contains("at character"), e.getMessage());
    }
  }
}
