package io.kcdelta.delta.dv;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.UUID;

/**
 * Z85, the Base85 variant Delta writes deletion vector references in (JSON-friendly): every 4
 * bytes, read as a big-endian unsigned number, become 5 characters, most significant digit first.
 */
final class Z85 {
  private static final String ALPHABET =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  private static final int[] DIGIT = new int[128];

  /** A UUID's 16 bytes take 20 characters. */
  static final int UUID_LENGTH = 20;

  static {
    Arrays.fill(DIGIT, -1);
    for (int i = 0; i < ALPHABET.length(); i++) {
      DIGIT[ALPHABET.charAt(i)] = i;
    }
  }

  private Z85() {}

  /** Encodes bytes whose count is a multiple of 4. */
  static String encode(byte[] bytes) {
    if (bytes.length % 4 != 0) {
      throw new IllegalArgumentException("Z85 encodes whole 4-byte words: " + bytes.length);
    }
    StringBuilder out = new StringBuilder(bytes.length / 4 * 5);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    char[] word = new char[5];
    while (in.hasRemaining()) {
      long value = in.getInt() & 0xFFFFFFFFL;
      for (int i = 4; i >= 0; i--) {
        word[i] = ALPHABET.charAt((int) (value % 85));
        value /= 85;
      }
      out.append(word);
    }
    return out.toString();
  }

  /** Decodes text whose length is a multiple of 5. */
  static byte[] decode(String text) {
    if (text.length() % 5 != 0) {
      throw new IllegalArgumentException("not Z85: length " + text.length());
    }
    ByteBuffer out = ByteBuffer.allocate(text.length() / 5 * 4);
    for (int w = 0; w < text.length(); w += 5) {
      long value = 0;
      for (int i = w; i < w + 5; i++) {
        char c = text.charAt(i);
        int digit = c < 128 ? DIGIT[c] : -1;
        if (digit < 0) {
          throw new IllegalArgumentException("not Z85: character '" + c + "' at " + i);
        }
        value = value * 85 + digit;
      }
      if (value > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("not Z85: word at " + w + " exceeds 32 bits");
      }
      out.putInt((int) value);
    }
    return out.array();
  }

  static String encode(UUID uuid) {
    return encode(
        ByteBuffer.allocate(16)
            .putLong(uuid.getMostSignificantBits())
            .putLong(uuid.getLeastSignificantBits())
            .array());
  }

  static UUID decodeUuid(String text) {
    ByteBuffer bytes = ByteBuffer.wrap(decode(text));
    return new UUID(bytes.getLong(), bytes.getLong());
  }
}
