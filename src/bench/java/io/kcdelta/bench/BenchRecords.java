package io.kcdelta.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * The benchmark's record: an order of 21 fields (ids, strings of varied length, two decimals,
 * timestamps, a date, floats, a boolean, a nested address struct, an array of tags), about 1 KB of
 * payload on average, in JsonConverter's schema envelope. Deterministic per id.
 */
public final class BenchRecords {
  /** Values of {@code bucket}: the partition column of the memory bench. */
  public static final int BUCKETS = 100;

  static final String SCHEMA =
      """
      {"type":"struct","name":"BenchOrder","optional":false,"fields":[
       {"field":"order_id","type":"int64","optional":false},
       {"field":"customer_id","type":"int64","optional":false},
       {"field":"bucket","type":"string","optional":false},
       {"field":"sku","type":"string","optional":false},
       {"field":"status","type":"string","optional":false},
       {"field":"quantity","type":"int32","optional":false},
       {"field":"unit_price","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"}},
       {"field":"total","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"4","connect.decimal.precision":"22"}},
       {"field":"discount","type":"double","optional":true},
       {"field":"weight","type":"float","optional":false},
       {"field":"is_gift","type":"boolean","optional":false},
       {"field":"created_at","type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},
       {"field":"updated_at","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1},
       {"field":"ship_date","type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},
       {"field":"email","type":"string","optional":false},
       {"field":"user_agent","type":"string","optional":false},
       {"field":"description","type":"string","optional":false},
       {"field":"note","type":"string","optional":true},
       {"field":"address","type":"struct","optional":true,"fields":[
         {"field":"street","type":"string","optional":false},
         {"field":"city","type":"string","optional":false},
         {"field":"zip","type":"string","optional":false},
         {"field":"country","type":"string","optional":false}]},
       {"field":"tags","type":"array","items":{"type":"string","optional":false},"optional":true},
       {"field":"channel","type":"string","optional":false}
      ]}"""
          .replaceAll("\\s*\\n\\s*", "");

  private static final String[] WORDS =
      ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
              + "tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation "
              + "ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit "
              + "esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia "
              + "deserunt mollit anim id est laborum parcel express priority warehouse returned fragile gift wrap")
          .split(" ");
  private static final String[] STATUS = {
    "NEW", "PAID", "PACKED", "SHIPPED", "DELIVERED", "CANCELLED", "RETURNED"
  };
  private static final String[] CITIES = {
    "Lisbon", "Berlin", "Austin", "Osaka", "Lagos", "Lima", "Oslo", "Pune", "Quito", "Seoul",
    "Perth", "Turin"
  };
  private static final String[] COUNTRIES = {
    "PT", "DE", "US", "JP", "NG", "PE", "NO", "IN", "EC", "KR", "AU", "IT"
  };
  private static final String[] CHANNELS = {"web", "ios", "android", "store", "partner"};
  private static final String[] AGENTS = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "okhttp/4.12.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15"
  };

  private BenchRecords() {}

  private static String text(SplittableRandom r, int minChars, int maxChars) {
    int target = minChars + r.nextInt(maxChars - minChars + 1);
    StringBuilder sb = new StringBuilder(target + 12);
    while (sb.length() < target) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[r.nextInt(WORDS.length)]);
      if (r.nextInt(9) == 0) {
        sb.append(r.nextInt(100_000));
      }
    }
    return sb.toString();
  }

  private static void str(StringBuilder out, String name, String v) {
    out.append('"').append(name).append("\":");
    if (v == null) {
      out.append("null");
    } else {
      out.append('"').append(v).append('"');
    }
    out.append(',');
  }

  private static String b64(BigDecimal d) {
    return Base64.getEncoder().encodeToString(d.unscaledValue().toByteArray());
  }

  /** The JSON payload of record {@code id} (no envelope). */
  public static String payload(long id) {
    SplittableRandom r = new SplittableRandom(id * 0x9E3779B97F4A7C15L + 17);
    StringBuilder p = new StringBuilder(1400);
    p.append('{');
    p.append("\"order_id\":").append(id).append(',');
    p.append("\"customer_id\":").append(1_000_000 + r.nextInt(5_000_000)).append(',');
    str(p, "bucket", "b" + (id % BUCKETS));
    str(p, "sku", "SKU-" + Long.toString(r.nextLong(1L << 40), 36).toUpperCase());
    str(p, "status", STATUS[r.nextInt(STATUS.length)]);
    int qty = 1 + r.nextInt(20);
    p.append("\"quantity\":").append(qty).append(',');
    BigDecimal unit = BigDecimal.valueOf(99 + r.nextInt(9_999_900), 2);
    p.append("\"unit_price\":\"").append(b64(unit)).append("\",");
    BigDecimal total = unit.multiply(BigDecimal.valueOf(qty)).setScale(4);
    p.append("\"total\":\"").append(b64(total)).append("\",");
    p.append("\"discount\":")
        .append(r.nextInt(4) == 0 ? "null" : String.valueOf(r.nextInt(5000) / 100.0))
        .append(',');
    p.append("\"weight\":").append(r.nextInt(200_00) / 100.0f).append(',');
    p.append("\"is_gift\":").append(r.nextInt(10) == 0).append(',');
    long created = 1_735_689_600_000L + id * 37 + r.nextInt(1000);
    p.append("\"created_at\":").append(created).append(',');
    p.append("\"updated_at\":")
        .append(r.nextInt(3) == 0 ? "null" : String.valueOf(created + r.nextInt(86_400_000)))
        .append(',');
    p.append("\"ship_date\":").append(20_089 + r.nextInt(400)).append(',');
    str(
        p,
        "email",
        "user" + r.nextInt(5_000_000) + "@" + WORDS[r.nextInt(WORDS.length)] + ".example.com");
    str(p, "user_agent", AGENTS[r.nextInt(AGENTS.length)]);
    str(p, "description", text(r, 200, 600));
    str(p, "note", r.nextInt(5) == 0 ? null : text(r, 0, 400));
    if (r.nextInt(10) == 0) {
      p.append("\"address\":null,");
    } else {
      int c = r.nextInt(CITIES.length);
      p.append("\"address\":{");
      str(p, "street", (1 + r.nextInt(999)) + " " + text(r, 8, 30));
      str(p, "city", CITIES[c]);
      str(p, "zip", String.format("%05d", r.nextInt(100_000)));
      p.setLength(p.length() - 1);
      p.append(",\"country\":\"").append(COUNTRIES[c]).append("\"},");
    }
    p.append("\"tags\":[");
    int tags = r.nextInt(5);
    for (int i = 0; i < tags; i++) {
      p.append(i == 0 ? "" : ",").append('"').append(WORDS[r.nextInt(WORDS.length)]).append('"');
    }
    p.append("],");
    p.append("\"channel\":\"").append(CHANNELS[r.nextInt(CHANNELS.length)]).append("\"}");
    return p.toString();
  }

  /** Record {@code id} as JsonConverter (schemas.enable=true) bytes. */
  public static byte[] json(long id) {
    return json(payload(id));
  }

  /** A {@link #payload} in JsonConverter's envelope (schemas.enable=true), as bytes. */
  public static byte[] json(String payload) {
    return ("{\"schema\":" + SCHEMA + ",\"payload\":" + payload + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  public static JsonConverter converter() {
    JsonConverter c = new JsonConverter();
    c.configure(Map.of("schemas.enable", "true"), false);
    return c;
  }

  /**
   * Records [from, from+count) as Connect Structs, converted the way the sink's worker converts
   * them.
   */
  public static List<Struct> structs(long from, int count) {
    JsonConverter c = converter();
    List<Struct> out = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      SchemaAndValue sv = c.toConnectData("bench", json(id));
      out.add((Struct) sv.value());
    }
    return out;
  }
}
