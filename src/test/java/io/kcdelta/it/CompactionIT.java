package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.RemoveFile;
import io.delta.standalone.actions.SetTransaction;
import io.kcdelta.it.infra.ChildJvm;
import io.kcdelta.testutil.ParquetRows;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction inside the connector, on embedded Connect (2 workers) and a file:// table: small files
 * become few without any row lost, doubled or changed for a batch or a streaming reader; and beside
 * a foreign writer in another JVM that deletes rows, no deleted row comes back and no other row is
 * lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactionIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MIN_FILES = 8;

  @TempDir Path dir;
  private EmbeddedConnectCluster connect;
  private final Configuration conf = new Configuration();

  @BeforeAll
  void start() {
    connect = ConnectCluster.start(getClass().getSimpleName(), 2);
    conf.set("delta.logStore.file.impl", "io.kcdelta.logstore.LocalFileLogStore");
  }

  @AfterAll
  void stop() {
    if (connect != null) {
      connect.stop();
    }
  }

  private Map<String, String> config(String topic, int tasks, String table, int minFiles) {
    Map<String, String> c = ConnectCluster.jsonSinkConfig(topic, tasks, table, true);
    c.put("delta.table.partition.columns", "region");
    c.put("flush.interval.ms", "1000");
    c.put("compaction.enabled", "true");
    c.put("compaction.interval.ms", "1000");
    c.put("compaction.min.input.files", String.valueOf(minFiles));
    return c;
  }

  /**
   * 6 tasks, 200,000 records over about 20 commits per worker: once the records are committed and
   * compaction has come to rest, each partition value holds fewer than compaction.min.input.files
   * files per size tier; every record is in the table once; the compaction commits carry
   * dataChange=false and no offsets; each compacted file's stats are those of its rows; and a
   * streaming reader of the changes (dataChange=true only) sees every record once.
   */
  @Test
  void smallFilesBecomeFewAndEveryRecordStaysExactlyOnce() throws Exception {
    String topic = "compacted";
    int partitions = 6;
    long records = 200_000;
    String table = dir.resolve("compacted").toUri().toString();
    connect.kafka().createTopic(topic, partitions);
    ConnectCluster.runConnector(connect, "compacted-sink", config(topic, 6, table, MIN_FILES), 6);
    OrderRecords orders = new OrderRecords();
    long cpuBefore = maintenanceCpuNanos();
    long processCpuBefore = processCpuNanos();
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      for (long from = 0; from < records; from += 10_000) {
        orders.produce(producer, topic, partitions, from, from + 10_000);
        Thread.sleep(500);
      }
    }
    DeltaTableContents.awaitRows(conf, table, records, 180_000);
    Map<String, String> filesPerRegion = awaitFilesAtRest(table, MIN_FILES, 120_000);
    long maintenanceCpu = maintenanceCpuNanos() - cpuBefore;
    long processCpu = processCpuNanos() - processCpuBefore;

    DeltaTableContents contents = DeltaTableContents.read(conf, table);
    assertEquals(records, contents.idCounts().size(), "every record is in the table");
    assertTrue(contents.idCounts().values().stream().allMatch(n -> n == 1), "each once");
    orders
        .lastOffsets()
        .forEach(
            (tp, offset) ->
                assertEquals(
                    offset,
                    DeltaTableContents.txnVersions(
                            conf,
                            table,
                            List.of("compacted-sink-" + tp.topic() + "-" + tp.partition()))
                        .values()
                        .iterator()
                        .next(),
                    "the txn version of " + tp));

    History history = history(table);
    assertTrue(history.compactionCommits > 0, "compaction ran");
    assertEquals(
        0, history.compactionCommitsWithDataChangeOrTxn, "compaction commits change no data");
    Set<String> compactedLive =
        contents.files().stream()
            .filter(f -> !f.isDataChange())
            .map(AddFile::getPath)
            .collect(Collectors.toSet());
    assertFalse(compactedLive.isEmpty());
    for (AddFile f : contents.files()) {
      if (compactedLive.contains(f.getPath())) {
        assertStatsMatchRows(table, f);
      }
    }
    assertEquals(records, history.streamedIds.size(), "the stream sees every record");
    assertTrue(
        history.streamedIds.values().stream().allMatch(n -> n == 1), "the stream sees each once");

    System.out.printf(
        "CompactionIT: %d records; data files appended %d, compaction commits %d (removed %d, "
            + "added %d); live files per region at rest (appended+compacted) %s (< %d per tier); "
            + "maintenance thread CPU %.1f s "
            + "of %.1f s process CPU (%.1f%%)%n",
        records,
        history.appendedFiles,
        history.compactionCommits,
        history.compactionRemoved,
        history.compactionAdded,
        filesPerRegion,
        MIN_FILES,
        maintenanceCpu / 1e9,
        processCpu / 1e9,
        100.0 * maintenanceCpu / processCpu);
    connect.deleteConnector("compacted-sink");
  }

  /**
   * A foreign writer in another JVM deletes rows (rewrites a file without the ids ending in 3, as a
   * Spark DELETE does) while the connector appends and compacts aggressively (2 files suffice).
   * Whoever removes a file first wins; the other's commit conflicts and is retried or dropped. The
   * table ends with every record once except exactly the ones the foreign writer deleted.
   */
  @Test
  void compactionBesideAForeignDeleteLosesAndResurrectsNothing() throws Exception {
    String topic = "raced";
    int partitions = 3;
    long records = 40_000;
    String table = dir.resolve("raced").toUri().toString();
    Path deletedIds = dir.resolve("deleted-ids.txt");
    connect.kafka().createTopic(topic, partitions);
    ConnectCluster.runConnector(connect, "raced-sink", config(topic, 3, table, 2), 3);
    OrderRecords orders = new OrderRecords();
    ChildJvm deleter;
    try (KafkaProducer<byte[], byte[]> producer = ConnectCluster.producer(connect)) {
      orders.produce(producer, topic, partitions, 0, 2_000);
      DeltaTableContents.awaitRows(conf, table, 2_000, 120_000);
      deleter =
          ChildJvm.start(
              ForeignDeleter.class.getName(), List.of(table, "25000", deletedIds.toString()));
      for (long from = 2_000; from < records; from += 2_000) {
        orders.produce(producer, topic, partitions, from, from + 2_000);
        Thread.sleep(1_000);
      }
    }
    String output;
    try {
      assertEquals(0, deleter.await(120_000), deleter.output());
      output = deleter.output();
    } finally {
      deleter.close();
    }
    Set<Long> deleted =
        Files.readAllLines(deletedIds).stream().map(Long::parseLong).collect(Collectors.toSet());
    long expected = records - deleted.size();
    awaitIdCount(table, expected, 180_000);

    DeltaTableContents contents = DeltaTableContents.read(conf, table);
    Set<Long> resurrected = new HashSet<>(deleted);
    resurrected.retainAll(contents.idCounts().keySet());
    assertEquals(Set.of(), resurrected, "deleted rows stay deleted");
    for (long id = 0; id < records; id++) {
      if (!deleted.contains(id)) {
        assertEquals(1, contents.idCounts().getOrDefault(id, 0), "record " + id);
      }
    }
    History history = history(table);
    long deletes = output.lines().filter(l -> l.startsWith("DELETED")).count();
    long conflicts = output.lines().filter(l -> l.startsWith("CONFLICT")).count();
    assertTrue(deletes > 0 && history.compactionCommits > 0, "both wrote: " + output);
    System.out.printf(
        "CompactionIT race: foreign deletes %d (%d ids), its conflicts %d; compaction commits %d%n",
        deletes, deleted.size(), conflicts, history.compactionCommits);
    connect.deleteConnector("raced-sink");
  }

  /** What the table's log says happened, version by version. */
  private static final class History {
    long appendedFiles;
    long compactionCommits;
    long compactionCommitsWithDataChangeOrTxn;
    long compactionRemoved;
    long compactionAdded;
    final Map<Long, Integer> streamedIds = new HashMap<>();
  }

  private History history(String table) throws Exception {
    History h = new History();
    Iterator<VersionLog> changes = DeltaLog.forTable(conf, table).getChanges(0, true);
    while (changes.hasNext()) {
      List<Action> actions = changes.next().getActions();
      boolean compaction =
          actions.stream()
              .anyMatch(
                  a ->
                      (a instanceof AddFile f && !f.isDataChange())
                          || (a instanceof RemoveFile r && !r.isDataChange()));
      if (compaction) {
        h.compactionCommits++;
        for (Action a : actions) {
          if ((a instanceof AddFile f && f.isDataChange())
              || (a instanceof RemoveFile r && r.isDataChange())
              || a instanceof SetTransaction) {
            h.compactionCommitsWithDataChangeOrTxn++;
          }
          h.compactionRemoved += a instanceof RemoveFile ? 1 : 0;
          h.compactionAdded += a instanceof AddFile ? 1 : 0;
        }
        continue;
      }
      // A streaming reader takes the files added with dataChange=true, removed later or not.
      for (Action a : actions) {
        if (a instanceof AddFile f && f.isDataChange()) {
          h.appendedFiles++;
          for (Group row : ParquetRows.read(conf, absolute(table, f))) {
            h.streamedIds.merge(row.getLong("id", 0), 1, Integer::sum);
          }
        }
      }
    }
    return h;
  }

  /** The file's stats say what its rows hold: count, id bounds, nulls of note. */
  private void assertStatsMatchRows(String table, AddFile f) throws Exception {
    List<Group> rows = ParquetRows.read(conf, absolute(table, f));
    JsonNode stats = JSON.readTree(f.getStats());
    assertEquals(rows.size(), stats.get("numRecords").asLong(), f.getPath());
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long nullNotes = 0;
    for (Group row : rows) {
      long id = row.getLong("id", 0);
      min = Math.min(min, id);
      max = Math.max(max, id);
      nullNotes += row.getFieldRepetitionCount("note") == 0 ? 1 : 0;
    }
    assertEquals(min, stats.get("minValues").get("id").asLong(), f.getPath());
    assertEquals(max, stats.get("maxValues").get("id").asLong(), f.getPath());
    assertEquals(nullNotes, stats.get("nullCount").get("note").asLong(), f.getPath());
    assertFalse(stats.get("minValues").has("region"), "partition columns have no stats");
  }

  private static org.apache.hadoop.fs.Path absolute(String table, AddFile f) {
    return new org.apache.hadoop.fs.Path(
        new org.apache.hadoop.fs.Path(table),
        new org.apache.hadoop.fs.Path(URI.create(f.getPath()).getPath()));
  }

  /**
   * Waits until the live files stay the same for 6 s (six compaction intervals, twice the age a
   * small file needs), then asserts what compaction promises at rest: in each partition value, each
   * size tier (files within a factor of compaction.min.input.files in size) holds fewer than
   * compaction.min.input.files files. Returns per partition value the live files as
   * appended+compacted, and the tiers.
   */
  private Map<String, String> awaitFilesAtRest(String table, int minFiles, long timeoutMs)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Set<String> seen = Set.of();
    long unchangedSince = System.currentTimeMillis();
    List<AddFile> live = List.of();
    while (System.currentTimeMillis() - unchangedSince < 6_000) {
      assertTrue(System.currentTimeMillis() < deadline, "compaction did not come to rest");
      Thread.sleep(500);
      live = List.copyOf(DeltaLog.forTable(conf, table).update().getAllFiles());
      Set<String> paths = live.stream().map(AddFile::getPath).collect(Collectors.toSet());
      if (!paths.equals(seen)) {
        seen = paths;
        unchangedSince = System.currentTimeMillis();
      }
    }
    Map<String, int[]> perRegion = new TreeMap<>();
    Map<String, Map<Integer, Integer>> tiers = new TreeMap<>();
    for (AddFile f : live) {
      String region = f.getPartitionValues().get("region");
      perRegion.computeIfAbsent(region, r -> new int[2])[f.isDataChange() ? 0 : 1]++;
      int tier = (int) Math.floor(Math.log(f.getSize()) / Math.log(minFiles));
      tiers.computeIfAbsent(region, r -> new TreeMap<>()).merge(tier, 1, Integer::sum);
    }
    Map<String, String> out = new TreeMap<>();
    perRegion.forEach(
        (region, n) -> out.put(region, n[0] + "+" + n[1] + " in tiers " + tiers.get(region)));
    assertTrue(
        tiers.values().stream().allMatch(t -> t.values().stream().allMatch(n -> n < minFiles)),
        "at rest, live files per region (appended+compacted): " + out);
    return out;
  }

  private void awaitIdCount(String table, long ids, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    long seen;
    do {
      seen = DeltaTableContents.read(conf, table).idCounts().size();
      if (seen == ids) {
        return;
      }
      Thread.sleep(500);
    } while (System.currentTimeMillis() < deadline);
    throw new AssertionError("the table holds " + seen + " distinct ids, not " + ids);
  }

  private static long maintenanceCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("kcdelta-table-maintenance")) {
        sum += Math.max(0, threads.getThreadCpuTime(t.getId()));
      }
    }
    return sum;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
