package io.kcdelta.parquet;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/** Checks Connect's Struct.put already makes for well-built records, for values that bypass it. */
class NestedValueCheckTest {

  @Test
  void requiredListElementMustNotBeNull() {
    ListWriter w =
        new ListWriter("tags", false, new PrimitiveWriters.StringWriter("tags.element", null));
    DataException e = assertThrows(DataException.class, () -> w.check(Arrays.asList("a", null)));
    assertTrue(e.getMessage().contains("'tags[1]'"), e.getMessage());
    assertDoesNotThrow(
        () ->
            new ListWriter("tags", true, new PrimitiveWriters.StringWriter("e", null))
                .check(Arrays.asList("a", null)));
  }

  @Test
  void mapKeysMustNotBeNullNorValuesOfRequiredType() {
    MapWriter w =
        new MapWriter(
            "attrs",
            new PrimitiveWriters.StringWriter("attrs.key", null),
            false,
            new PrimitiveWriters.LongWriter("attrs.value", null));
    Map<String, Long> nullKey = new HashMap<>();
    nullKey.put(null, 1L);
    assertThrows(DataException.class, () -> w.check(nullKey));
    Map<String, Long> nullValue = new HashMap<>();
    nullValue.put("k", null);
    DataException e = assertThrows(DataException.class, () -> w.check(nullValue));
    assertTrue(e.getMessage().contains("'attrs[k]'"), e.getMessage());
    DataException wrongClass = assertThrows(DataException.class, () -> w.check(Map.of("k", 1)));
    assertTrue(
        wrongClass.getMessage().contains("attrs.value") && wrongClass.getMessage().contains("Long"),
        wrongClass.getMessage());
  }
}
