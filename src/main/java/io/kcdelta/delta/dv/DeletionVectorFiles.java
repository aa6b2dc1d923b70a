package io.kcdelta.delta.dv;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads and writes deletion vectors where a table keeps them. A deletion vector file is Delta's
 * format version 1: a version byte, then per vector its size, its serialized bitmap and the
 * bitmap's CRC-32, size and checksum big-endian (as Delta's own writers and readers frame them).
 */
public final class DeletionVectorFiles {
  private static final byte FORMAT_VERSION = 1;

  private final Path tableRoot;
  private final Configuration conf;

  public DeletionVectorFiles(Path tableRoot, Configuration conf) {
    this.tableRoot = tableRoot;
    this.conf = conf;
  }

  /**
   * The rows a descriptor marks deleted.
   *
   * @throws IOException it cannot be read, or its size, checksum or cardinality is not what the
   *     descriptor and the file say
   */
  public DeletionVector read(DeletionVectorDescriptor d) throws IOException {
    byte[] data;
    if (DeletionVectorDescriptor.INLINE.equals(d.storageType())) {
      byte[] decoded = Z85.decode(d.pathOrInlineDv());
      if (decoded.length < d.sizeInBytes()) {
        throw new IOException("inline deletion vector shorter than its size " + d.sizeInBytes());
      }
      data = Arrays.copyOf(decoded, d.sizeInBytes());
    } else {
      Path file = d.file(tableRoot);
      try (FSDataInputStream in = file.getFileSystem(conf).open(file)) {
        in.seek(d.offset() == null ? 0 : d.offset());
        DataInputStream framed = new DataInputStream(in);
        int size = framed.readInt();
        if (size != d.sizeInBytes()) {
          throw new IOException(
              file + " holds a deletion vector of " + size + " bytes, not " + d.sizeInBytes());
        }
        data = new byte[size];
        framed.readFully(data);
        if (framed.readInt() != checksum(data)) {
          throw new IOException("deletion vector checksum mismatch in " + file);
        }
      }
    }
    DeletionVector dv = DeletionVector.deserialize(data);
    if (dv.cardinality() != d.cardinality()) {
      throw new IOException(
          "deletion vector holds "
              + dv.cardinality()
              + " rows, its descriptor says "
              + d.cardinality());
    }
    return dv;
  }

  /**
   * Writes the vectors into one new file of the table's directory (never overwriting one), and
   * returns their descriptors, in order.
   */
  public List<DeletionVectorDescriptor> write(List<DeletionVector> vectors) throws IOException {
    UUID id = UUID.randomUUID();
    Path file = new Path(tableRoot, DeletionVectorDescriptor.fileName(id));
    FileSystem fs = file.getFileSystem(conf);
    List<DeletionVectorDescriptor> out = new ArrayList<>();
    boolean done = false;
    try (FSDataOutputStream stream = fs.create(file, false);
        DataOutputStream framed = new DataOutputStream(stream)) {
      framed.writeByte(FORMAT_VERSION);
      for (DeletionVector dv : vectors) {
        int offset = framed.size();
        byte[] data = dv.serialize();
        framed.writeInt(data.length);
        framed.write(data);
        framed.writeInt(checksum(data));
        out.add(
            new DeletionVectorDescriptor(
                DeletionVectorDescriptor.UUID_FILE,
                Z85.encode(id),
                offset,
                data.length,
                dv.cardinality()));
      }
      done = true;
    } finally {
      if (!done) {
        fs.delete(file, false);
      }
    }
    return out;
  }

  private static int checksum(byte[] data) {
    CRC32 crc = new CRC32();
    crc.update(data);
    return (int) crc.getValue();
  }
}
