package io.kcdelta.logstore;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * Contents of Delta commit files ({@code NNN.json}), least recently used evicted first, bounded in
 * bytes. Only for files whose listed status carries an ETag: the key is path + length + ETag, so a
 * table deleted and recreated under the same path (new content, new ETag) never hits an old entry.
 * Commit files are never modified in place, which is what makes caching them by name safe at all.
 */
final class CommitFileCache {

  record Key(Path path, long length, String etag) {}

  private final long maxBytes;
  private final long maxEntryBytes;
  private final LinkedHashMap<Key, byte[]> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  CommitFileCache(long maxBytes, long maxEntryBytes) {
    this.maxBytes = maxBytes;
    this.maxEntryBytes = maxEntryBytes;
  }

  /**
   * @return null when the status has no ETag (then the file is not cached)
   */
  static Key keyOf(FileStatus status) {
    if (status instanceof EtagSource e && e.getEtag() != null && !e.getEtag().isEmpty()) {
      return new Key(status.getPath(), status.getLen(), e.getEtag());
    }
    return null;
  }

  boolean fits(long length) {
    return length <= maxEntryBytes;
  }

  synchronized byte[] get(Key key) {
    return entries.get(key);
  }

  synchronized void put(Key key, byte[] content) {
    if (content.length > maxEntryBytes || entries.containsKey(key)) {
      return;
    }
    entries.put(key, content);
    bytes += content.length;
    Iterator<Map.Entry<Key, byte[]>> it = entries.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      bytes -= it.next().getValue().length;
      it.remove();
    }
  }
}
