package io.kcdelta.maintenance;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.AddFile;
import io.kcdelta.delta.CommitPlan;
import io.kcdelta.delta.LogCommit;
import io.kcdelta.delta.LogPaths;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.RemoveFile;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.dv.DeletionVector;
import io.kcdelta.delta.dv.DeletionVectorDescriptor;
import io.kcdelta.delta.dv.DeletionVectorFiles;
import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.DataFileNames;
import io.kcdelta.parquet.ParquetFileWriter;
import io.kcdelta.schema.DeltaSchemas;
import io.kcdelta.testutil.ParquetRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * A local Delta table of rows {id: long, name: string, p: string (partition column)} whose files
 * are written by the connector's Parquet writer and committed through Delta Standalone, on the
 * connector's file:// log store.
 */
final class TestTable {
  static final String CONNECTOR = "compaction-test";
  static final Schema ROW =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("p", Schema.STRING_SCHEMA)
          .build();
  static final Schema WIDER =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("extra", Schema.OPTIONAL_INT32_SCHEMA)
          .field("p", Schema.STRING_SCHEMA)
          .build();

  final Path root;
  final Configuration conf = new Configuration();
  final DataFileNames names = new DataFileNames(CONNECTOR, CompressionCodecName.SNAPPY);

  TestTable(java.nio.file.Path dir) {
    this.root = new Path(dir.toUri());
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
  }

  /** The log a compactor or orphan cleanup of the test works with. */
  private TableLog log;

  /** Another writer of the table: the test's appends, deletes and schema changes. */
  private TableLog writer;

  TableLog log() {
    if (log == null) {
      log = new TableLog(root.toString(), conf, "test-maintenance");
    }
    return log;
  }

  private TableLog writer() {
    if (writer == null) {
      writer = new TableLog(root.toString(), conf, "test-writer");
    }
    return writer;
  }

  void create(Schema schema) {
    setSchema(schema);
  }

  /** Creates the table with deletion vectors enabled. */
  void createWithDeletionVectors(Schema schema) {
    commit(
        Metadata.create(
            DeltaSchemas.toDelta(schema),
            List.of("p"),
            Map.of("delta.enableDeletionVectors", "true")),
        List.of(),
        List.of(),
        "CREATE TABLE");
  }

  /** Creates the table with this schema, or changes its schema to this one. */
  void setSchema(Schema schema) {
    var state = writer().update();
    Metadata metadata =
        state.exists()
            ? state.metadata().withSchema(DeltaSchemas.toDelta(schema))
            : Metadata.create(DeltaSchemas.toDelta(schema), List.of("p"), Map.of());
    commit(metadata, List.of(), List.of(), state.exists() ? "ADD COLUMNS" : "CREATE TABLE");
  }

  /** Writes a file of these ids under partition value {@code p}, not committed. */
  AddFile write(Schema schema, String p, long modificationTime, long... ids) throws IOException {
    Path file = new Path(root, "p=" + p + "/" + names.next());
    DataFile done;
    try (ParquetFileWriter w =
        new ParquetFileWriter(conf, file, schema, Set.of("p"), CompressionCodecName.SNAPPY)) {
      for (long id : ids) {
        Struct row = new Struct(schema).put("id", id).put("name", "n" + id).put("p", p);
        w.write(row);
      }
      done = w.finish();
    }
    return AddFile.of(
        LogPaths.relative(root, file),
        Map.of("p", p),
        done.sizeBytes(),
        modificationTime,
        true,
        done.statsJson());
  }

  /** Writes and commits one file per id run. */
  List<AddFile> append(String p, long modificationTime, int files, int rowsPerFile, long firstId)
      throws IOException {
    List<AddFile> added = new ArrayList<>();
    long id = firstId;
    for (int f = 0; f < files; f++) {
      long[] ids = new long[rowsPerFile];
      for (int r = 0; r < rowsPerFile; r++) {
        ids[r] = id++;
      }
      added.add(write(ROW, p, modificationTime, ids));
    }
    commit(null, added, List.of(), "WRITE");
    return added;
  }

  long append(List<AddFile> adds) {
    return commit(null, adds, List.of(), "WRITE");
  }

  long delete(List<RemoveFile> removes) {
    return commit(null, List.of(), removes, "DELETE");
  }

  /**
   * Deletes rows of a live file by position, as Spark's DELETE does on a table with deletion
   * vectors: the file's remove (with its old vector) and its add with the union, in one commit.
   *
   * @return the file as it is now
   */
  AddFile deleteRows(AddFile file, long... positions) throws IOException {
    DeletionVectorFiles vectors = new DeletionVectorFiles(root, conf);
    DeletionVector dv = DeletionVector.of(positions);
    DeletionVectorDescriptor old = file.deletionVectorDescriptor();
    if (old != null) {
      dv = dv.union(vectors.read(old));
    }
    AddFile now = file.withDeletionVector(vectors.write(List.of(dv)).get(0), true);
    commit(null, List.of(now), List.of(file.remove(System.currentTimeMillis(), true)), "DELETE");
    return now;
  }

  private long commit(Metadata metadata, List<AddFile> adds, List<RemoveFile> removes, String op) {
    return writer()
        .commit(
            (base, since) ->
                new CommitPlan(metadata, adds, removes, List.of(), op, Map.of(), false, Map.of()))
        .version();
  }

  /** The live files now, as Delta Kernel's scan reads them. */
  List<AddFile> liveFiles() {
    return writer().liveFiles().files();
  }

  LogCommit commitAt(long version) {
    return writer().commits(version, version).get(0);
  }

  /** Per id, how many rows of the latest snapshot hold it (rows a deletion vector deletes not). */
  Map<Long, Integer> idCounts() throws IOException {
    Map<Long, Integer> counts = new HashMap<>();
    DeletionVectorFiles vectors = new DeletionVectorFiles(root, conf);
    for (AddFile f : liveFiles()) {
      DeletionVectorDescriptor d = f.deletionVectorDescriptor();
      DeletionVector deleted = d == null ? DeletionVector.of() : vectors.read(d);
      long position = 0;
      for (Group row : ParquetRows.read(conf, LogPaths.absolute(root, f.path()))) {
        if (!deleted.contains(position++)) {
          counts.merge(row.getLong("id", 0), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  Path absolute(AddFile f) {
    return LogPaths.absolute(root, f.path());
  }

  static DeltaSinkConfig config(Map<String, String> overrides) {
    Map<String, String> props = new HashMap<>();
    props.put("topics", "t");
    props.put(DeltaSinkConfig.TABLE_PATH, "file:///tmp/unused");
    props.put(DeltaSinkConfig.TXN_APP_ID, CONNECTOR);
    props.putAll(overrides);
    return new DeltaSinkConfig(props);
  }
}
