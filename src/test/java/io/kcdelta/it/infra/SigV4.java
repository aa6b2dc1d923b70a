package io.kcdelta.it.infra;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 as the AWS documentation specifies it ("Create a signed AWS API
 * request"): canonical request, string to sign, signing key derived from the secret through the
 * date, region and service, HMAC-SHA256. Written from that specification for the test servers,
 * which check every request a client signs.
 *
 * <p>What S3 does differently, as documented: the path is used as sent (not encoded a second time)
 * and the payload hash is the value of {@code x-amz-content-sha256} (a hex hash, or one of the
 * literals UNSIGNED-PAYLOAD and STREAMING-*, whose chunk signatures are not checked here: the seed
 * signature over the headers is).
 */
public final class SigV4 {
  private static final Pattern AUTHORIZATION =
      Pattern.compile(
          "AWS4-HMAC-SHA256\\s+Credential=([^/,\\s]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request,\\s*"
              + "SignedHeaders=([^,\\s]+),\\s*Signature=([0-9a-f]{64})\\s*");

  private SigV4() {}

  /** An HTTP request as received. */
  public record Request(
      String method,
      String rawPath,
      String rawQuery,
      List<Map.Entry<String, String>> headers,
      byte[] body) {

    /** All values of a header, in order (names compared ignoring case). */
    public List<String> values(String name) {
      List<String> v = new ArrayList<>();
      for (Map.Entry<String, String> h : headers) {
        if (h.getKey().equalsIgnoreCase(name)) {
          v.add(h.getValue());
        }
      }
      return v;
    }

    public String header(String name) {
      List<String> v = values(name);
      return v.isEmpty() ? null : v.get(0);
    }
  }

  /** The parts of an Authorization header. */
  public record Credential(
      String accessKeyId,
      String date,
      String region,
      String service,
      List<String> signedHeaders,
      String signature) {}

  /** Null when the header is absent or not SigV4. */
  public static Credential parse(String authorization) {
    if (authorization == null) {
      return null;
    }
    Matcher m = AUTHORIZATION.matcher(authorization.trim());
    if (!m.matches()) {
      return null;
    }
    return new Credential(
        m.group(1), m.group(2), m.group(3), m.group(4), List.of(m.group(5).split(";")), m.group(6));
  }

  /** The signature {@code r} should carry if signed with {@code secret} under {@code c}'s scope. */
  public static String expectedSignature(Request r, Credential c, String secret) {
    String amzDate = r.header("x-amz-date");
    if (amzDate == null) {
      throw new IllegalArgumentException("no x-amz-date header");
    }
    String scope = c.date() + "/" + c.region() + "/" + c.service() + "/aws4_request";
    String stringToSign =
        "AWS4-HMAC-SHA256\n"
            + amzDate
            + "\n"
            + scope
            + "\n"
            + hex(sha256(canonicalRequest(r, c).getBytes(StandardCharsets.UTF_8)));
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), c.date());
    key = hmac(key, c.region());
    key = hmac(key, c.service());
    key = hmac(key, "aws4_request");
    return hex(hmac(key, stringToSign));
  }

  static String canonicalRequest(Request r, Credential c) {
    boolean s3 = "s3".equals(c.service());
    String path = r.rawPath() == null || r.rawPath().isEmpty() ? "/" : r.rawPath();
    String canonicalUri = s3 ? path : encode(path, false);
    StringBuilder headers = new StringBuilder();
    for (String name : c.signedHeaders()) {
      List<String> values = new ArrayList<>();
      for (String v : r.values(name)) {
        values.add(v.trim().replaceAll("\\s+", " "));
      }
      headers.append(name.toLowerCase(Locale.ROOT)).append(':').append(String.join(",", values));
      headers.append('\n');
    }
    String payload = r.header("x-amz-content-sha256");
    if (payload == null) {
      payload = hex(sha256(r.body() == null ? new byte[0] : r.body()));
    }
    return r.method()
        + "\n"
        + canonicalUri
        + "\n"
        + canonicalQuery(r.rawQuery())
        + "\n"
        + headers
        + "\n"
        + String.join(";", c.signedHeaders())
        + "\n"
        + payload;
  }

  private static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (String part : rawQuery.split("&")) {
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      pairs.add(new String[] {encode(decode(k), true), encode(decode(v), true)});
    }
    pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
    List<String> out = new ArrayList<>();
    for (String[] p : pairs) {
      out.add(p[0] + "=" + p[1]);
    }
    return String.join("&", out);
  }

  /** RFC 3986 unreserved characters kept, everything else %XX (upper case); '/' kept in paths. */
  static String encode(String s, boolean encodeSlash) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char ch = (char) (b & 0xff);
      if ((ch >= 'A' && ch <= 'Z')
          || (ch >= 'a' && ch <= 'z')
          || (ch >= '0' && ch <= '9')
          || ch == '-'
          || ch == '_'
          || ch == '.'
          || ch == '~'
          || (ch == '/' && !encodeSlash)) {
        out.append(ch);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  /** Percent-decoding only ('+' stays '+': SigV4 clients encode a space as %20). */
  static String decode(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '%' && i + 2 < s.length()) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        byte[] bytes = String.valueOf(ch).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  public static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** Compares signatures in time independent of where they differ. */
  static boolean same(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
  }
}
