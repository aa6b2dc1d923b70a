package io.kcdelta.delta.dv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of one data file that are deleted, by position (0-based row index in the file): a 64-bit
 * Roaring bitmap, kept as 32-bit bitmaps ("buckets") by the high half of each position, in Delta's
 * serialized form: a magic number, then the bitmap in the Roaring format's portable 64-bit layout
 * (bucket count, then each bucket's key and its 32-bit bitmap), all little-endian.
 */
public final class DeletionVector {
  /** Delta's marker of this exact serialized form (its "portable" form), the one we write. */
  static final int MAGIC = 1681511377;

  /**
   * Delta's marker of its older "native" form, which other writers may have left (the protocol's
   * own inline example is in it): magic, bucket count and each bucket's size big-endian, buckets
   * keyed by their index.
   */
  static final int NATIVE_MAGIC = 1681511376;

  private final TreeMap<Integer, RoaringBitmap> buckets = new TreeMap<>();

  public static DeletionVector of(long... positions) {
    DeletionVector dv = new DeletionVector();
    for (long p : positions) {
      dv.add(p);
    }
    return dv;
  }

  public void add(long position) {
    if (position < 0) {
      throw new IllegalArgumentException("a row position is not negative: " + position);
    }
    buckets.computeIfAbsent((int) (position >>> 32), k -> new RoaringBitmap()).add((int) position);
  }

  public boolean contains(long position) {
    RoaringBitmap bucket = position < 0 ? null : buckets.get((int) (position >>> 32));
    return bucket != null && bucket.contains((int) position);
  }

  /** How many rows are deleted. */
  public long cardinality() {
    long n = 0;
    for (RoaringBitmap b : buckets.values()) {
      n += b.getLongCardinality();
    }
    return n;
  }

  /** A deletion vector holding this one's rows and {@code other}'s. */
  public DeletionVector union(DeletionVector other) {
    DeletionVector out = new DeletionVector();
    for (DeletionVector dv : new DeletionVector[] {this, other}) {
      for (Map.Entry<Integer, RoaringBitmap> e : dv.buckets.entrySet()) {
        out.buckets.merge(e.getKey(), e.getValue().clone(), (x, y) -> RoaringBitmap.or(x, y));
      }
    }
    return out;
  }

  /** The positions, ascending. */
  public long[] positions() {
    long[] out = new long[Math.toIntExact(cardinality())];
    int i = 0;
    for (Map.Entry<Integer, RoaringBitmap> e : buckets.entrySet()) {
      long high = (long) e.getKey() << 32;
      for (int low : e.getValue()) {
        out[i++] = high | (low & 0xFFFFFFFFL);
      }
    }
    return out;
  }

  byte[] serialize() {
    int size = 4 + 8;
    for (RoaringBitmap b : buckets.values()) {
      b.runOptimize();
      size += 4 + b.serializedSizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(MAGIC).putLong(buckets.size());
    for (Map.Entry<Integer, RoaringBitmap> e : buckets.entrySet()) {
      out.putInt(e.getKey());
      ByteBuffer bucket = out.slice().order(ByteOrder.LITTLE_ENDIAN);
      e.getValue().serialize(bucket);
      out.position(out.position() + e.getValue().serializedSizeInBytes());
    }
    return out.array();
  }

  static DeletionVector deserialize(byte[] bytes) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    try {
      if (in.remaining() >= 4 && in.getInt(0) == Integer.reverseBytes(NATIVE_MAGIC)) {
        return deserializeNative(in.order(ByteOrder.BIG_ENDIAN));
      }
      int magic = in.getInt();
      if (magic != MAGIC) {
        throw new IOException("not a deletion vector: magic number " + magic + ", not " + MAGIC);
      }
      long count = in.getLong();
      DeletionVector dv = new DeletionVector();
      for (long i = 0; i < count; i++) {
        int key = in.getInt();
        if (key < 0 || (i > 0 && key <= dv.buckets.lastKey())) {
          throw new IOException("deletion vector bucket keys out of order at " + key);
        }
        RoaringBitmap bucket = new RoaringBitmap();
        bucket.deserialize(in.slice().order(ByteOrder.LITTLE_ENDIAN));
        in.position(in.position() + bucket.serializedSizeInBytes());
        dv.buckets.put(key, bucket);
      }
      if (in.hasRemaining()) {
        throw new IOException("deletion vector has " + in.remaining() + " bytes past its end");
      }
      return dv;
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new IOException("deletion vector is truncated or corrupt", e);
    }
  }

  private static DeletionVector deserializeNative(ByteBuffer in) throws IOException {
    in.getInt();
    int count = in.getInt();
    DeletionVector dv = new DeletionVector();
    for (int key = 0; key < count; key++) {
      int size = in.getInt();
      RoaringBitmap bucket = new RoaringBitmap();
      bucket.deserialize(in.slice().limit(size).order(ByteOrder.LITTLE_ENDIAN));
      in.position(in.position() + size);
      if (!bucket.isEmpty()) {
        dv.buckets.put(key, bucket);
      }
    }
    if (in.hasRemaining()) {
      throw new IOException("deletion vector has " + in.remaining() + " bytes past its end");
    }
    return dv;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeletionVector dv && Arrays.equals(dv.positions(), positions());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(positions());
  }

  @Override
  public String toString() {
    return "DeletionVector(" + cardinality() + " rows)";
  }
}
