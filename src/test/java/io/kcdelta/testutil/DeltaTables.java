package io.kcdelta.testutil;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.utils.CloseableIterator;
import io.kcdelta.schema.SchemaJson;
import io.kcdelta.schema.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * A Delta table as Delta Kernel reads it, with nothing of the connector's Delta layer in between:
 * the tests' independent reader of what the connector wrote.
 */
public final class DeltaTables {
  private DeltaTables() {}

  /** A live data file. */
  public record LiveFile(
      String path,
      Map<String, String> partitionValues,
      long size,
      String stats,
      boolean hasDeletionVector) {}

  public static Engine engine(Configuration conf) {
    return DefaultEngine.create(conf);
  }

  /** The latest snapshot. */
  public static SnapshotImpl snapshot(Configuration conf, String path) {
    return (SnapshotImpl) TableManager.loadSnapshot(qualified(conf, path)).build(engine(conf));
  }

  public static StructType schema(Configuration conf, String path) {
    return SchemaJson.parse(snapshot(conf, path).getMetadata().getSchemaString());
  }

  public static List<String> partitionColumns(Configuration conf, String path) {
    return VectorUtils.toJavaList(snapshot(conf, path).getMetadata().getPartitionColumns());
  }

  /** The txn version of each appId (-1: none), by Kernel's own lookup. */
  public static Map<String, Long> txnVersions(
      Configuration conf, String path, Collection<String> appIds) {
    Engine engine = engine(conf);
    Snapshot snapshot = TableManager.loadSnapshot(qualified(conf, path)).build(engine);
    Map<String, Long> out = new HashMap<>();
    for (String appId : appIds) {
      out.put(appId, snapshot.getLatestTransactionVersion(engine, appId).orElse(-1L));
    }
    return out;
  }

  /** The table's reader and writer features (empty below protocol 3/7). */
  public static Set<String> features(Configuration conf, String path) {
    return snapshot(conf, path).getProtocol().getReaderAndWriterFeatures();
  }

  public static List<LiveFile> files(Configuration conf, String path) {
    Engine engine = engine(conf);
    Snapshot snapshot = TableManager.loadSnapshot(qualified(conf, path)).build(engine);
    List<LiveFile> files = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> scan =
        snapshot.getScanBuilder().build().getScanFiles(engine, true)) {
      while (scan.hasNext()) {
        try (CloseableIterator<Row> rows = scan.next().getRows()) {
          while (rows.hasNext()) {
            Row scanFile = rows.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            int stats = add.getSchema().indexOf("stats");
            int dv = add.getSchema().indexOf("deletionVector");
            MapValue partitions = add.getMap(add.getSchema().indexOf("partitionValues"));
            files.add(
                new LiveFile(
                    add.getString(add.getSchema().indexOf("path")),
                    VectorUtils.toJavaMap(partitions),
                    add.getLong(add.getSchema().indexOf("size")),
                    stats < 0 || add.isNullAt(stats) ? null : add.getString(stats),
                    dv >= 0 && !add.isNullAt(dv)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static String qualified(Configuration conf, String path) {
    try {
      Path p = new Path(path);
      return p.getFileSystem(conf).makeQualified(p).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
