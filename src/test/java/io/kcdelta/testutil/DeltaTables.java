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

  /**
   * Every row of the latest snapshot as Kernel reads it (column mapping, deletion vectors, type
   * widening and partition values applied), by logical column name; values as Kernel gives them
   * (Long for long, Integer for int, Long micros for timestamps, ...).
   */
  public static List<Map<String, Object>> rows(Configuration conf, String path) {
    Engine engine = engine(conf);
    Snapshot snapshot = TableManager.loadSnapshot(qualified(conf, path)).build(engine);
    io.delta.kernel.Scan scan = snapshot.getScanBuilder().build();
    Row state = scan.getScanState(engine);
    io.delta.kernel.types.StructType physical =
        io.delta.kernel.internal.data.ScanStateRow.getPhysicalDataReadSchema(state);
    List<Map<String, Object>> out = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
          while (scanFiles.hasNext()) {
            Row scanFile = scanFiles.next();
            io.delta.kernel.utils.FileStatus status =
                io.delta.kernel.internal.InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<io.delta.kernel.data.ColumnarBatch> data =
                engine
                    .getParquetHandler()
                    .readParquetFiles(
                        io.delta.kernel.internal.util.Utils.singletonCloseableIterator(status),
                        physical,
                        java.util.Optional.empty())
                    .map(io.delta.kernel.engine.FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                io.delta.kernel.Scan.transformPhysicalData(engine, state, scanFile, data)) {
              while (logical.hasNext()) {
                try (CloseableIterator<Row> rows = logical.next().getRows()) {
                  while (rows.hasNext()) {
                    out.add(values(rows.next()));
                  }
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Map<String, Object> values(Row row) {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    io.delta.kernel.types.StructType schema = row.getSchema();
    for (int i = 0; i < schema.length(); i++) {
      io.delta.kernel.types.DataType type = schema.at(i).getDataType();
      Object v;
      if (row.isNullAt(i)) {
        v = null;
      } else if (type instanceof io.delta.kernel.types.LongType
          || type instanceof io.delta.kernel.types.TimestampType
          || type instanceof io.delta.kernel.types.TimestampNTZType) {
        v = row.getLong(i);
      } else if (type instanceof io.delta.kernel.types.IntegerType
          || type instanceof io.delta.kernel.types.DateType) {
        v = row.getInt(i);
      } else if (type instanceof io.delta.kernel.types.StringType) {
        v = row.getString(i);
      } else if (type instanceof io.delta.kernel.types.DoubleType) {
        v = row.getDouble(i);
      } else if (type instanceof io.delta.kernel.types.FloatType) {
        v = row.getFloat(i);
      } else if (type instanceof io.delta.kernel.types.BooleanType) {
        v = row.getBoolean(i);
      } else if (type instanceof io.delta.kernel.types.DecimalType) {
        v = row.getDecimal(i);
      } else {
        v = "(" + type + ")";
      }
      out.put(schema.at(i).getName(), v);
    }
    return out;
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
