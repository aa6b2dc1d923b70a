package io.kcdelta.sim;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.table.DeltaSinkWriter;
import io.kcdelta.table.RecordOrigin;
import io.kcdelta.table.SinkMetrics;
import io.kcdelta.testutil.ParquetRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.parquet.example.data.Group;

/**
 * One random schedule of Connect runtime events and storage faults driving the real
 * {@link DeltaSinkWriter} on real local Delta tables, then the invariants of the exactly-once contract.
 */
final class Simulation implements SimWorkerSinkTask.Group {
  static final long FLUSH_MS = 1_000;

  private final long seed;
  private final Random random;
  private final Path dir;
  private final boolean cooperative;
  private final boolean twoTables;
  private final SimKafka kafka;
  private final List<SimWorkerSinkTask> members = new ArrayList<>();
  private final List<SimWorkerSinkTask> zombies = new ArrayList<>();
  /** Expelled members that learn it at their next poll (onPartitionsLost), then rejoin. */
  private final List<SimWorkerSinkTask> rejoining = new ArrayList<>();
  private final List<SimWorkerSinkTask> all = new ArrayList<>();
  private final Map<TopicPartition, SimWorkerSinkTask> owner = new HashMap<>();
  private long clock = 1_000_000;
  private int instances;
  final List<String> trace = new ArrayList<>();
  final List<String> violations = new ArrayList<>();

  Simulation(long seed, Path dir) {
    this.seed = seed;
    this.random = new Random(seed);
    this.dir = dir;
    this.cooperative = random.nextBoolean();
    this.twoTables = random.nextBoolean();
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : twoTables ? List.of("a", "b") : List.of("a")) {
      for (int p = 0; p < (twoTables ? 2 : 3); p++) {
        partitions.add(new TopicPartition(topic, p));
      }
    }
    kafka = new SimKafka(partitions);
    SimFaults.reset(new Random(seed * 31 + 7));
  }

  /** Runs the random schedule, drains, checks; returns the violations (empty: the contract held). */
  List<String> run(int steps) {
    trace("seed " + seed + (cooperative ? " cooperative" : " eager") + (twoTables ? ", two tables" : ", one table"));
    startTask();
    if (random.nextBoolean()) {
      startTask();
    }
    for (int i = 0; i < steps && violations.isEmpty(); i++) {
      step();
      checkNoTaskDied();
    }
    if (violations.isEmpty()) {
      drain();
    }
    if (violations.isEmpty()) {
      checkTables();
    }
    return violations;
  }

  // ------------------------------------------------------------------ schedule

  private void step() {
    int r = random.nextInt(100);
    if (r < 25) {
      TopicPartition tp = kafka.partitions().get(random.nextInt(kafka.partitions().size()));
      int n = 1 + random.nextInt(12);
      for (int i = 0; i < n; i++) {
        kafka.produce(tp, random.nextInt(40) == 0);
      }
      trace("produce " + n + " to " + tp);
    } else if (r < 70) {
      List<SimWorkerSinkTask> running = running();
      if (!running.isEmpty()) {
        SimWorkerSinkTask t = running.get(random.nextInt(running.size()));
        t.iteration();
        trace("iterate " + t.name + " " + t.assignment + ": " + t.lastDelivery + " seeks after: " + t.context.seeks);
      }
    } else if (r < 80) {
      clock += 200 + random.nextInt(1500);
    } else if (r < 88) {
      double[] levels = {0, 0, 0.1, 0.3, 0.7};
      SimFaults.dataFileCreate = levels[random.nextInt(levels.length)];
      SimFaults.dataFileClose = levels[random.nextInt(levels.length)];
      SimFaults.commitBefore = levels[random.nextInt(levels.length)];
      SimFaults.commitAfter = levels[random.nextInt(levels.length)] / 2;
      trace("faults create=" + SimFaults.dataFileCreate + " close=" + SimFaults.dataFileClose + " commitBefore="
          + SimFaults.commitBefore + " commitAfter=" + SimFaults.commitAfter);
    } else if (r < 91) {
      if (members.size() < 3) {
        startTask();
      }
    } else if (r < 93) {
      if (members.size() > 1) {
        SimWorkerSinkTask t = members.get(random.nextInt(members.size()));
        trace("stop " + t.name);
        leave(t);
        t.stop();
      }
    } else if (r < 95) {
      if (!members.isEmpty()) {
        SimWorkerSinkTask t = members.get(random.nextInt(members.size()));
        trace("crash " + t.name);
        leave(t);
        t.stopped = true; // no close(), no stop(): the process is gone
        if (members.isEmpty()) {
          startTask();
        }
      }
    } else if (r < 97) {
      if (!members.isEmpty()) {
        SimWorkerSinkTask t = members.get(random.nextInt(members.size()));
        trace("expel " + t.name + " (it keeps running as a zombie)");
        leave(t);
        zombies.add(t);
        if (members.isEmpty()) {
          startTask();
        }
      }
    } else {
      if (!zombies.isEmpty()) {
        SimWorkerSinkTask z = zombies.remove(0);
        trace("zombie " + z.name + " will notice at its next poll that it lost " + z.assignment);
        rejoining.add(z);
      }
    }
  }

  private void drain() {
    trace("drain");
    SimFaults.healAll();
    rejoining.addAll(zombies);
    zombies.clear();
    members.removeIf(m -> !m.alive());
    rejoining.removeIf(m -> !m.alive());
    if (members.isEmpty()) {
      startTask();
    }
    for (int round = 0; round < 400 && (round % 4 != 3 || !allCommitted()); round++) {
      List<SimWorkerSinkTask> turn = new ArrayList<>(members);
      turn.addAll(rejoining);
      for (SimWorkerSinkTask t : turn) {
        t.iteration();
      }
      clock += FLUSH_MS / 2;
      checkNoTaskDied();
      if (!violations.isEmpty()) {
        return;
      }
    }
    for (SimWorkerSinkTask t : new ArrayList<>(members)) {
      leave(t);
      t.stop();
    }
    checkNoTaskDied();
  }

  private boolean allCommitted() {
    Map<TopicPartition, Long> txns = txnVersions();
    for (TopicPartition tp : kafka.partitions()) {
      if (kafka.endOffset(tp) > 0 && txns.getOrDefault(tp, -1L) != kafka.endOffset(tp) - 1) {
        return false;
      }
    }
    return true;
  }

  private List<SimWorkerSinkTask> running() {
    List<SimWorkerSinkTask> out = new ArrayList<>(members);
    out.addAll(zombies);
    out.addAll(rejoining);
    out.removeIf(t -> !t.alive());
    return out;
  }

  private void startTask() {
    String name = "task-" + instances++;
    SimWorkerSinkTask t = new SimWorkerSinkTask(name, kafka, this, this::newWriter, 2 + random.nextInt(4),
        1 + random.nextInt(20));
    members.add(t);
    all.add(t);
    trace("start " + name);
  }

  private DeltaSinkWriter newWriter(SinkTaskContext context) {
    Map<String, String> p = new HashMap<>();
    p.put("name", "sim");
    p.put("delta.table.path", "file://" + dir.toAbsolutePath() + "/" + (twoTables ? "${topic}" : "table"));
    p.put("flush.interval.ms", String.valueOf(FLUSH_MS));
    p.put("delta.commit.retry.timeout.ms", String.valueOf(24 * 3_600_000L));
    p.put("behavior.on.null.values", "fail");
    p.put("hadoop.fs.file.impl", SimFileSystem.class.getName());
    p.put("hadoop.fs.file.impl.disable.cache", "true");
    p.put("hadoop.delta.logStore.file.impl", SimLogStore.class.getName());
    DeltaSinkConfig config = new DeltaSinkConfig(p);
    return new DeltaSinkWriter(config, context, HadoopConfigurationFactory.create(config),
        context.errantRecordReporter(), SinkMetrics.none(), RecordOrigin.ORIGINAL, () -> clock);
  }

  private void leave(SimWorkerSinkTask t) {
    members.remove(t);
    owner.values().removeIf(o -> o == t);
  }

  // ------------------------------------------------------------------ the group

  @Override
  public void rebalance(SimWorkerSinkTask member) {
    if (rejoining.remove(member)) {
      trace(member.name + " lost " + member.assignment + " and rejoins");
      member.onPartitionsLost(new ArrayList<>(member.assignment));
      members.add(member);
    }
    if (!members.contains(member)) {
      return; // a zombie does not know it was expelled
    }
    Set<TopicPartition> target = targetAssignment(member);
    if (target.equals(member.assignment)) {
      return;
    }
    if (cooperative) {
      List<TopicPartition> revoke = new ArrayList<>(member.assignment);
      revoke.removeAll(target);
      if (!revoke.isEmpty()) {
        trace(member.name + " revoked " + revoke);
        member.onPartitionsRevoked(revoke);
        revoke.forEach(owner::remove);
      }
    } else {
      List<TopicPartition> revoke = new ArrayList<>(member.assignment);
      trace(member.name + " revoked (eager) " + revoke);
      member.onPartitionsRevoked(revoke);
      revoke.forEach(owner::remove);
    }
    List<TopicPartition> assign = new ArrayList<>();
    for (TopicPartition tp : target) {
      if (!member.assignment.contains(tp) && !owner.containsKey(tp)) {
        assign.add(tp);
        owner.put(tp, member);
      }
    }
    if (!assign.isEmpty() || !cooperative) {
      trace(member.name + " assigned " + assign);
      member.onPartitionsAssigned(assign);
    }
  }

  /** Round-robin over the partitions, by join order. */
  private Set<TopicPartition> targetAssignment(SimWorkerSinkTask member) {
    Set<TopicPartition> target = new java.util.LinkedHashSet<>();
    int index = members.indexOf(member);
    List<TopicPartition> partitions = kafka.partitions();
    for (int i = 0; i < partitions.size(); i++) {
      if (i % members.size() == index) {
        target.add(partitions.get(i));
      }
    }
    return target;
  }

  @Override
  public void commit(SimWorkerSinkTask member, Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (members.contains(member)) { // a zombie's commit fails: its generation is stale
      offsets.forEach((tp, o) -> kafka.groupOffsets.put(tp, o.offset()));
    }
  }

  @Override
  public long position(TopicPartition tp) {
    return kafka.groupOffsets.getOrDefault(tp, 0L);
  }

  // ------------------------------------------------------------------ invariants

  private void checkNoTaskDied() {
    for (SimWorkerSinkTask t : all) {
      if (t.failure != null) {
        violations.add(t.name + " died: " + stackOf(t.failure));
        t.failure = null;
      }
    }
  }

  private static String stackOf(Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    return w.toString().lines().filter(l -> !l.contains("org.junit") && !l.contains("jdk.internal")
        && !l.contains("java.base")).limit(14).collect(java.util.stream.Collectors.joining("\n"));
  }

  private List<String> tablePaths() {
    return kafka.partitions().stream().map(this::tableOf).distinct().toList();
  }

  private final Map<String, DeltaLog> readers = new HashMap<>();

  /** The table's log as a reader sees it now (one DeltaLog per table, updated incrementally). */
  private DeltaLog reader(String table) {
    if (!Files.exists(Path.of(URI.create(table)).resolve("_delta_log"))) {
      return null;
    }
    DeltaLog log = readers.computeIfAbsent(table, t -> DeltaLog.forTable(new Configuration(), t));
    log.update();
    return log;
  }

  private String tableOf(TopicPartition tp) {
    return dir.resolve(twoTables ? tp.topic() : "table").toUri().toString();
  }

  private Map<TopicPartition, Long> txnVersions() {
    Map<TopicPartition, Long> out = new HashMap<>();
    Map<String, io.delta.standalone.OptimisticTransaction> txns = new HashMap<>();
    for (TopicPartition tp : kafka.partitions()) {
      DeltaLog log = reader(tableOf(tp));
      if (log != null) {
        var txn = txns.computeIfAbsent(tableOf(tp), t -> log.startTransaction());
        out.put(tp, txn.txnVersion("sim-" + tp.topic() + "-" + tp.partition()));
      }
    }
    return out;
  }

  private void checkTables() {
    Configuration conf = new Configuration();
    Map<String, Integer> rows = new TreeMap<>();
    for (String table : tablePaths()) {
      DeltaLog log = reader(table);
      if (log == null) {
        continue;
      }
      Set<String> added = new HashSet<>();
      for (Iterator<io.delta.standalone.VersionLog> it = log.getChanges(0, true); it.hasNext(); ) {
        io.delta.standalone.VersionLog v = it.next();
        for (Action a : v.getActions()) {
          if (a instanceof AddFile add && !added.add(add.getPath())) {
            violations.add(table + ": file " + add.getPath() + " added twice (again in version " + v.getVersion() + ")");
          }
        }
      }
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(table);
      for (AddFile add : log.snapshot().getAllFiles()) {
        try {
          for (Group g : ParquetRows.read(conf, new org.apache.hadoop.fs.Path(root, add.getPath()))) {
            rows.merge(g.getString("t", 0) + "-" + g.getInteger("p", 0) + "@" + g.getLong("o", 0), 1, Integer::sum);
          }
        } catch (IOException e) {
          violations.add(table + ": cannot read " + add.getPath() + ": " + e);
        }
      }
    }
    Map<TopicPartition, Long> txns = txnVersions();
    for (TopicPartition tp : kafka.partitions()) {
      long end = kafka.endOffset(tp);
      List<Long> missing = new ArrayList<>();
      List<String> duplicated = new ArrayList<>();
      for (long o = 0; o < end; o++) {
        String key = SimKafka.key(tp, o);
        int n = rows.getOrDefault(key, 0);
        boolean poison = kafka.poison.contains(key);
        if (poison && n > 0) {
          violations.add(key + " is errant (null value) but is in the table");
        } else if (!poison && n == 0) {
          missing.add(o);
        } else if (n > 1) {
          duplicated.add(o + " x" + n);
        }
      }
      if (!missing.isEmpty()) {
        violations.add(tp + ": offsets missing from the table: " + missing + " (of 0.." + (end - 1) + ")");
      }
      if (!duplicated.isEmpty()) {
        violations.add(tp + ": offsets in the table more than once: " + duplicated);
      }
      long expected = end - 1;
      if (end > 0 && txns.getOrDefault(tp, -1L) != expected) {
        violations.add(tp + ": txn version " + txns.get(tp) + ", expected the last offset " + expected);
      }
    }
    Set<String> errantKeys = new HashSet<>();
    all.forEach(t -> t.context.errant.forEach(r -> errantKeys.add(SimKafka.key(
        new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset()))));
    for (String p : kafka.poison) {
      if (!errantKeys.contains(p)) {
        violations.add(p + " (null value) never reached the errant record reporter");
      }
    }
  }

  private void trace(String line) {
    trace.add(line);
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

}
