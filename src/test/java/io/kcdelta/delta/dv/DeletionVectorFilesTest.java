package io.kcdelta.delta.dv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.internal.deletionvectors.DeletionVectorStoredBitmap;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeletionVectorFilesTest {
  @TempDir java.nio.file.Path dir;
  private final Configuration conf = new Configuration();

  private Path root() {
    return new Path(dir.toUri());
  }

  /**
   * The protocol's inline example (in Delta's older native form): its text holds rows 3, 4, 7, 11,
   * 18 and 29.
   */
  @Test
  void readsTheProtocolsInlineExample() throws IOException {
    DeletionVectorDescriptor d =
        DeletionVectorDescriptor.fromJson(
            Map.of(
                "storageType",
                "i",
                "pathOrInlineDv",
                "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",
                "sizeInBytes",
                40,
                "cardinality",
                6));
    DeletionVector dv = new DeletionVectorFiles(root(), conf).read(d);
    assertArrayEquals(new long[] {3, 4, 7, 11, 18, 29}, dv.positions());
    // The same rows in the form we write, inline.
    byte[] ours = DeletionVector.of(3, 4, 7, 11, 18, 29).serialize();
    DeletionVectorDescriptor inline =
        new DeletionVectorDescriptor("i", Z85.encode(pad(ours)), null, ours.length, 6);
    assertEquals(dv, new DeletionVectorFiles(root(), conf).read(inline));
  }

  /** The protocol's example of a file named by a random prefix and a UUID. */
  @Test
  void resolvesTheProtocolsRelativePathExample() {
    DeletionVectorDescriptor d =
        new DeletionVectorDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6);
    assertEquals(
        new Path("s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin"),
        d.file(new Path("s3://mytable/")));
  }

  @Test
  void vectorsWrittenToOneFileReadBackHereAndInDeltaKernel() throws IOException {
    DeletionVector small = DeletionVector.of(0, 5, 6, 7, 1_000_000);
    DeletionVector dense = new DeletionVector();
    for (long p = 10; p < 200_000; p += 2) {
      dense.add(p);
    }
    DeletionVector wide = DeletionVector.of(1, (1L << 32) + 3, (5L << 32) + 9);
    DeletionVectorFiles files = new DeletionVectorFiles(root(), conf);
    List<DeletionVectorDescriptor> written = files.write(List.of(small, dense, wide));

    assertEquals(3, written.size());
    assertEquals(1, written.get(0).offset(), "after the format version byte");
    assertEquals(small, files.read(written.get(0)));
    assertEquals(dense, files.read(written.get(1)));
    assertEquals(wide, files.read(written.get(2)));
    assertEquals(99_995, written.get(1).cardinality());

    // An independent reader: Delta Kernel's, through its own file system client.
    var fsClient = DefaultEngine.create(conf).getFileSystemClient();
    for (int i = 0; i < 3; i++) {
      DeletionVectorDescriptor d = written.get(i);
      var kernel =
          new io.delta.kernel.internal.actions.DeletionVectorDescriptor(
              d.storageType(),
              d.pathOrInlineDv(),
              Optional.of(d.offset()),
              d.sizeInBytes(),
              d.cardinality());
      long[] read =
          new DeletionVectorStoredBitmap(kernel, Optional.of(root().toString()))
              .load(fsClient)
              .toArray();
      assertArrayEquals(List.of(small, dense, wide).get(i).positions(), read, "vector " + i);
    }
  }

  @Test
  void aCorruptedVectorIsRefusedNotMisread() throws IOException {
    DeletionVectorFiles files = new DeletionVectorFiles(root(), conf);
    DeletionVectorDescriptor d = files.write(List.of(DeletionVector.of(1, 2, 3))).get(0);
    Path file = d.file(root());
    // Hadoop's local file system checks its own checksum file first; ours is the one under test.
    java.nio.file.Files.delete(dir.resolve("." + file.getName() + ".crc"));
    try (RandomAccessFile raf = new RandomAccessFile(file.toUri().getPath(), "rw")) {
      raf.seek(d.offset() + 4 + 20);
      int b = raf.read();
      raf.seek(d.offset() + 4 + 20);
      raf.write(b ^ 0x10);
    }
    IOException e = assertThrows(IOException.class, () -> files.read(d));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    DeletionVectorDescriptor wrongCount =
        new DeletionVectorDescriptor(
            d.storageType(), d.pathOrInlineDv(), d.offset(), d.sizeInBytes(), 4);
    assertThrows(IOException.class, () -> new DeletionVectorFiles(root(), conf).read(wrongCount));
  }

  @Test
  void unionKeepsBothVectorsRows() {
    DeletionVector a = DeletionVector.of(1, 2, (1L << 33));
    DeletionVector b = DeletionVector.of(2, 3);
    assertArrayEquals(new long[] {1, 2, 3, 1L << 33}, a.union(b).positions());
    assertArrayEquals(new long[] {1, 2, 1L << 33}, a.positions(), "the inputs are unchanged");
    assertTrue(a.union(b).contains(3));
  }

  private static byte[] pad(byte[] bytes) {
    return java.util.Arrays.copyOf(bytes, (bytes.length + 3) / 4 * 4);
  }
}
