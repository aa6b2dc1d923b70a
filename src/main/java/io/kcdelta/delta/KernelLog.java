package io.kcdelta.delta;

import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.fs.Path;
import io.delta.kernel.internal.replay.ActionWrapper;
import io.delta.kernel.internal.replay.ActionsIterator;
import io.delta.kernel.internal.snapshot.MetadataCleanup;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * What the layer asks of Delta Kernel: a table's state at its latest version (from the newest
 * checkpoint and the commits after it, any checkpoint kind), its live files, the files its log
 * references, and checkpoints with the expired-log cleanup after them.
 *
 * <p>Kernel's own reads and writes of the log go through the table's log store (Kernel's {@code
 * io.delta.kernel.logStore.<scheme>.impl}, set to the store the commits use): its listing recovers
 * an incomplete DynamoDB entry first, as every reader must.
 *
 * <p>Uses Kernel 4.4.0 internals (pinned by the dependency) where its public API has no answer: the
 * snapshot's protocol, metadata and log segment, the action iterator that reads every checkpoint
 * kind, the table config parsers and the expired-log cleanup.
 */
final class KernelLog {
  static final String KERNEL_LOG_STORE_KEY = "io.delta.kernel.logStore.%s.impl";

  private static final StructType STATE_SCHEMA =
      new StructType()
          .add("txn", SetTransaction.FULL_SCHEMA)
          .add("domainMetadata", io.delta.kernel.internal.actions.DomainMetadata.FULL_SCHEMA);

  private static final StructType PATHS_SCHEMA =
      new StructType()
          .add("add", new StructType().add("path", StringType.STRING))
          .add("remove", new StructType().add("path", StringType.STRING));

  private final String tablePath;
  private final Engine engine;

  KernelLog(String tablePath, Configuration conf, String scheme, String logStoreClass) {
    this.tablePath = tablePath;
    Configuration kernelConf = new Configuration(conf);
    kernelConf.set(String.format(KERNEL_LOG_STORE_KEY, scheme), logStoreClass);
    this.engine = DefaultEngine.create(kernelConf);
  }

  /** The latest snapshot, or null when there is no table. */
  private SnapshotImpl latest() {
    try {
      return (SnapshotImpl) TableManager.loadSnapshot(tablePath).build(engine);
    } catch (TableNotFoundException e) {
      return null;
    }
  }

  /** The table's state at its latest version ({@link LogState#NONE}: no table). */
  LogState load() {
    SnapshotImpl snapshot = latest();
    if (snapshot == null) {
      return LogState.NONE;
    }
    Map<String, Txn> txns = new HashMap<>();
    Map<String, DomainMetadata> domains = new HashMap<>();
    Set<String> domainsSeen = new HashSet<>();
    // Newest first: the first txn of an appId and the first action of a domain are the live ones.
    forEachRow(
        snapshot,
        STATE_SCHEMA,
        batch -> {
          ColumnVector txn = batch.getColumnVector(0);
          ColumnVector domain = batch.getColumnVector(1);
          for (int r = 0; r < batch.getSize(); r++) {
            if (!txn.isNullAt(r)) {
              SetTransaction t = SetTransaction.fromColumnVector(txn, r);
              txns.putIfAbsent(
                  t.getAppId(),
                  new Txn(t.getAppId(), t.getVersion(), t.getLastUpdated().orElse(null)));
            }
            if (!domain.isNullAt(r)) {
              var d = io.delta.kernel.internal.actions.DomainMetadata.fromColumnVector(domain, r);
              if (domainsSeen.add(d.getDomain()) && !d.isRemoved()) {
                domains.put(
                    d.getDomain(), new DomainMetadata(d.getDomain(), d.getConfiguration(), false));
              }
            }
          }
        });
    return new LogState(
        snapshot.getVersion(),
        protocol(snapshot.getProtocol()),
        metadata(snapshot.getMetadata()),
        txns,
        domains,
        snapshot.getTimestamp(engine));
  }

  /** The live data files at the latest version, with their stats (null: no table). */
  LiveFiles liveFiles() {
    SnapshotImpl snapshot = latest();
    if (snapshot == null) {
      return null;
    }
    List<AddFile> files = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> scan =
        snapshot.getScanBuilder().build().getScanFiles(engine, true)) {
      while (scan.hasNext()) {
        try (CloseableIterator<Row> rows = scan.next().getRows()) {
          while (rows.hasNext()) {
            Row row = rows.next();
            int add = row.getSchema().indexOf("add");
            files.add(AddFile.fromJson(KernelRows.toJson(row.getStruct(add))));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new LiveFiles(snapshot.getVersion(), files);
  }

  /**
   * The paths of every file an add or remove of the latest version's log segment names: the live
   * files and the removed ones the log still keeps (time travel needs them until VACUUM).
   */
  Set<String> referencedPaths() {
    Set<String> paths = new HashSet<>();
    SnapshotImpl snapshot = latest();
    if (snapshot == null) {
      return paths;
    }
    forEachRow(
        snapshot,
        PATHS_SCHEMA,
        batch -> {
          for (int c = 0; c < 2; c++) {
            ColumnVector action = batch.getColumnVector(c);
            ColumnVector path = action.getChild(0);
            for (int r = 0; r < batch.getSize(); r++) {
              if (!action.isNullAt(r) && !path.isNullAt(r)) {
                paths.add(path.getString(r));
              }
            }
          }
        });
    return paths;
  }

  /**
   * Writes the classic checkpoint of {@code version} (the protocol allows one on every table), then
   * deletes the log files that have expired, as the table's properties say.
   *
   * @return whether this call wrote it (false: it existed)
   */
  boolean checkpoint(long version) throws IOException {
    SnapshotImpl snapshot =
        (SnapshotImpl) TableManager.loadSnapshot(tablePath).atVersion(version).build(engine);
    boolean written = true;
    try {
      snapshot.writeCheckpoint(engine);
    } catch (CheckpointAlreadyExistsException e) {
      written = false;
    }
    // Kernel cleans up only after a checkpoint of a snapshot loaded as the latest; this one was
    // loaded at its version (the one Delta's interval rule picked), so the cleanup is ours to run.
    var metadata = snapshot.getMetadata();
    boolean protectedLog =
        snapshot
            .getProtocol()
            .getWriterFeatures()
            .contains(TableFeature.CHECKPOINT_PROTECTION.id());
    if (TableConfig.EXPIRED_LOG_CLEANUP_ENABLED.fromMetadata(metadata) && !protectedLog) {
      MetadataCleanup.cleanupExpiredLogs(
          engine,
          System::currentTimeMillis,
          new Path(tablePath),
          TableConfig.LOG_RETENTION.fromMetadata(metadata));
    }
    return written;
  }

  /** The table's checkpoint interval (delta.checkpointInterval, default 10). */
  static int checkpointInterval(Metadata metadata) {
    return TableConfig.CHECKPOINT_INTERVAL.fromMetadata(metadata.configuration());
  }

  private interface BatchConsumer {
    void accept(ColumnarBatch batch);
  }

  private void forEachRow(SnapshotImpl snapshot, StructType schema, BatchConsumer consumer) {
    try (CloseableIterator<ActionWrapper> actions =
        new ActionsIterator(
            engine, snapshot.getLogSegment().allLogFilesReversed(), schema, Optional.empty())) {
      while (actions.hasNext()) {
        consumer.accept(actions.next().getColumnarBatch());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Protocol protocol(io.delta.kernel.internal.actions.Protocol p) {
    return new Protocol(
        p.getMinReaderVersion(),
        p.getMinWriterVersion(),
        p.getMinReaderVersion() >= 3 ? p.getReaderFeatures() : null,
        p.getMinWriterVersion() >= 7 ? p.getWriterFeatures() : null);
  }

  private static Metadata metadata(io.delta.kernel.internal.actions.Metadata m) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", m.getId());
    m.getName().ifPresent(n -> json.put("name", n));
    m.getDescription().ifPresent(d -> json.put("description", d));
    Map<String, Object> format = new LinkedHashMap<>();
    format.put("provider", m.getFormat().getProvider());
    format.put("options", new LinkedHashMap<>(m.getFormat().getOptions()));
    json.put("format", format);
    json.put("schemaString", m.getSchemaString());
    json.put("partitionColumns", VectorUtils.toJavaList(m.getPartitionColumns()));
    json.put("configuration", new LinkedHashMap<>(m.getConfiguration()));
    m.getCreatedTime().ifPresent(t -> json.put("createdTime", t));
    return Metadata.fromJson(json);
  }
}
