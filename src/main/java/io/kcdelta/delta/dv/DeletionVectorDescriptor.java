package io.kcdelta.delta.dv;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.fs.Path;

/**
 * Where a data file's deletion vector is, as an {@code add} or {@code remove} action names it.
 *
 * @param storageType {@code u}: a file in the table's directory named by a UUID (with an optional
 *     random prefix directory); {@code p}: a file by absolute path; {@code i}: inline, the
 *     serialized bitmap itself in Z85
 * @param pathOrInlineDv per storage type: prefix + Z85 of the UUID, the path, or the Z85 data
 * @param offset where the vector starts in its file (its size field); null when inline
 * @param sizeInBytes the serialized bitmap's size (before any Z85)
 * @param cardinality how many rows it deletes
 */
public record DeletionVectorDescriptor(
    String storageType, String pathOrInlineDv, Integer offset, int sizeInBytes, long cardinality) {

  static final String UUID_FILE = "u";
  static final String ABSOLUTE_PATH = "p";
  static final String INLINE = "i";

  /** The descriptor in an action's JSON (null for none). */
  public static DeletionVectorDescriptor fromJson(Map<String, Object> json) {
    if (json == null) {
      return null;
    }
    return new DeletionVectorDescriptor(
        (String) json.get("storageType"),
        (String) json.get("pathOrInlineDv"),
        json.get("offset") instanceof Number n ? n.intValue() : null,
        ((Number) json.get("sizeInBytes")).intValue(),
        ((Number) json.get("cardinality")).longValue());
  }

  public Map<String, Object> toJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("storageType", storageType);
    out.put("pathOrInlineDv", pathOrInlineDv);
    if (offset != null) {
      out.put("offset", offset);
    }
    out.put("sizeInBytes", sizeInBytes);
    out.put("cardinality", cardinality);
    return out;
  }

  /** The file holding the vector, for a vector stored in one. */
  Path file(Path tableRoot) {
    return switch (storageType) {
      case UUID_FILE -> {
        int prefixLength = pathOrInlineDv.length() - Z85.UUID_LENGTH;
        if (prefixLength < 0) {
          throw new IllegalArgumentException("deletion vector path too short: " + pathOrInlineDv);
        }
        String name = fileName(Z85.decodeUuid(pathOrInlineDv.substring(prefixLength)));
        Path dir =
            prefixLength == 0
                ? tableRoot
                : new Path(tableRoot, pathOrInlineDv.substring(0, prefixLength));
        yield new Path(dir, name);
      }
      case ABSOLUTE_PATH -> new Path(java.net.URI.create(pathOrInlineDv));
      default ->
          throw new IllegalArgumentException(
              "deletion vector of storage type '" + storageType + "' is not in a file");
    };
  }

  static String fileName(UUID uuid) {
    return "deletion_vector_" + uuid + ".bin";
  }
}
