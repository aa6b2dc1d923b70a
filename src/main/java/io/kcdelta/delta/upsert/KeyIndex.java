package io.kcdelta.delta.upsert;

import io.kcdelta.schema.RowKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The key of every row of a data file, by position, read once per file and kept for the worker's
 * upsert commits: a data file never changes (a deletion vector marks its rows, the file stays), so
 * what was read stays true. Bounded: the files read longest ago are dropped past {@link #MAX_KEYS}
 * keys in all.
 */
public final class KeyIndex {
  /** About 100-200 MB of keys (a boxed Long or a short String and a reference each). */
  static final long MAX_KEYS = 4_000_000;

  private static final KeyIndex JVM = new KeyIndex(MAX_KEYS);

  private final long maxKeys;
  private long keys;
  private final LinkedHashMap<String, Object[]> files = new LinkedHashMap<>(16, 0.75f, true);
  private long filesRead;

  KeyIndex(long maxKeys) {
    this.maxKeys = maxKeys;
  }

  /** The worker's index, shared by its tasks. */
  public static KeyIndex jvm() {
    return JVM;
  }

  /** How many files were read from storage so far (the rest came from memory). */
  public synchronized long filesRead() {
    return filesRead;
  }

  /**
   * Per row of the file, its key as {@link RowKey#canonical} values (one column) or a {@link
   * RowKey} (several); null where a key column is null.
   *
   * @param columns the key columns' names in the file
   */
  Object[] keys(Path file, List<String> columns, Configuration conf) throws IOException {
    String id = file + "#" + columns;
    synchronized (this) {
      Object[] cached = files.get(id);
      if (cached != null) {
        return cached;
      }
    }
    Object[] read = read(file, columns, conf);
    synchronized (this) {
      filesRead++;
      if (files.put(id, read) == null) {
        keys += read.length;
      }
      var oldest = files.entrySet().iterator();
      while (keys > maxKeys && oldest.hasNext()) {
        Object[] dropped = oldest.next().getValue();
        if (dropped != read) {
          keys -= dropped.length;
          oldest.remove();
        }
      }
    }
    return read;
  }

  private static Object[] read(Path file, List<String> columns, Configuration conf)
      throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      List<Type> fields = new ArrayList<>();
      for (String column : columns) {
        if (!schema.containsField(column) || !schema.getType(column).isPrimitive()) {
          throw new IOException(file + " has no key column '" + column + "' of a primitive type");
        }
        fields.add(schema.getType(column));
      }
      MessageType projection = new MessageType(schema.getName(), fields);
      reader.setRequestedSchema(projection);
      Object[] out = new Object[Math.toIntExact(reader.getRecordCount())];
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(projection, schema);
      int row = 0;
      for (PageReadStore group = reader.readNextRowGroup();
          group != null;
          group = reader.readNextRowGroup()) {
        RecordReader<Group> records =
            io.getRecordReader(group, new GroupRecordConverter(projection));
        for (long r = 0; r < group.getRowCount(); r++) {
          out[row++] = key(records.read(), fields);
        }
      }
      return out;
    }
  }

  private static Object key(Group g, List<Type> fields) {
    Object[] values = new Object[fields.size()];
    for (int i = 0; i < values.length; i++) {
      if (g.getFieldRepetitionCount(i) == 0) {
        return null;
      }
      values[i] = value(g, i, fields.get(i).asPrimitiveType());
    }
    return values.length == 1 ? values[0] : RowKey.of(values);
  }

  private static Object value(Group g, int i, PrimitiveType type) {
    return switch (type.getPrimitiveTypeName()) {
      case INT32 -> (long) g.getInteger(i, 0);
      case INT64 -> g.getLong(i, 0);
      case BINARY -> g.getBinary(i, 0).toStringUsingUTF8();
      default ->
          throw new IllegalArgumentException(
              "key column '" + type.getName() + "' is " + type + ": keys are integers or strings");
    };
  }

  @Override
  public synchronized String toString() {
    return "KeyIndex(" + files.size() + " files, " + keys + " keys)";
  }
}
