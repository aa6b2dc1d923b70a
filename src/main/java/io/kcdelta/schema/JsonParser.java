package io.kcdelta.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;

/**
 * Parses JSON text (RFC 8259) into the values JsonConverter gives with {@code
 * schemas.enable=false}: maps, lists, String, Boolean, null, Long for integers (BigInteger beyond
 * long) and BigDecimal for other numbers (the text's exact digits, so a decimal column gets what
 * was written). Strict: one value, no trailing text, no comments.
 *
 * <p>Why our own: the plugin bundles no JSON library, and the worker's Jackson is not part of the
 * Connect API the plugin may rely on across versions.
 */
public final class JsonParser {
  private final String text;
  private int pos;

  private JsonParser(String text) {
    this.text = text;
  }

  /**
   * @throws DataException saying where the text stops being JSON
   */
  public static Object parse(String text) {
    JsonParser p = new JsonParser(text);
    p.skipSpace();
    Object value = p.value();
    p.skipSpace();
    if (p.pos < text.length()) {
      throw p.error("text after the JSON value");
    }
    return value;
  }

  private Object value() {
    if (pos >= text.length()) {
      throw error("the text ends where a value should be");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected '" + c + "'");
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> out = new LinkedHashMap<>();
    pos++;
    skipSpace();
    if (peek() == '}') {
      pos++;
      return out;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw error("expected a quoted key");
      }
      String key = string();
      skipSpace();
      expect(':');
      skipSpace();
      out.put(key, value());
      skipSpace();
      char c = next();
      if (c == '}') {
        return out;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    List<Object> out = new ArrayList<>();
    pos++;
    skipSpace();
    if (peek() == ']') {
      pos++;
      return out;
    }
    while (true) {
      skipSpace();
      out.add(value());
      skipSpace();
      char c = next();
      if (c == ']') {
        return out;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    pos++;
    StringBuilder sb = null;
    int start = pos;
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos);
      if (c == '"') {
        String s = sb == null ? text.substring(start, pos) : sb.append(text, start, pos).toString();
        pos++;
        return s;
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c != '\\') {
        pos++;
        continue;
      }
      if (sb == null) {
        sb = new StringBuilder();
      }
      sb.append(text, start, pos);
      pos++;
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw error("short \\u escape");
          }
          try {
            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("bad \\u escape");
          }
          pos += 4;
        }
        default -> throw error("bad escape '\\" + e + "'");
      }
      start = pos;
    }
  }

  private Object number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int intStart = pos;
    digits();
    if (pos - intStart > 1 && text.charAt(intStart) == '0') {
      throw error("a number with a leading zero");
    }
    boolean integral = true;
    if (peek() == '.') {
      integral = false;
      pos++;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      digits();
    }
    String n = text.substring(start, pos);
    if (!integral) {
      return new BigDecimal(n);
    }
    BigInteger big = new BigInteger(n);
    return big.bitLength() < 64 ? (Object) big.longValue() : big;
  }

  private void digits() {
    int start = pos;
    while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
      pos++;
    }
    if (pos == start) {
      throw error("expected a digit");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected text");
    }
    pos += word.length();
    return value;
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private char next() {
    if (pos >= text.length()) {
      throw error("the text ends too early");
    }
    return text.charAt(pos++);
  }

  private void expect(char c) {
    if (next() != c) {
      pos--;
      throw error("expected '" + c + "'");
    }
  }

  private DataException error(String what) {
    return new DataException("not JSON: " + what + " at character " + (pos + 1));
  }
}
