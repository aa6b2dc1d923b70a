package io.kcdelta.sim;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.RecordingRegistry;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.record.RecordOrigin;
import io.kcdelta.sim.SimFaults.Kind;
import io.kcdelta.table.CommitGroups;
import io.kcdelta.table.DeltaSinkWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.LoggerFactory;

/**
 * Connect runtime events and storage faults driving the real {@link DeltaSinkWriter} on real local
 * Delta tables, then the invariants of the exactly-once contract. Either one random schedule
 * ({@link #run}) or a script: {@link #startTask(int, int)}, {@link #produce}, {@link #iterate},
 * {@link #advanceClock}, {@link #faults()}, then {@link #finish()}.
 */
final class Simulation implements SimWorkerSinkTask.Group, AutoCloseable {
  static final long FLUSH_MS = 1_000;
  private static final String APP_ID = "sim";

  /**
   * Situations that hid exactly-once holes before, counted so that a change of the schedule's mix
   * of events that stops reaching them shows (the regression tests replay each one by a script).
   */
  enum Situation {
    /**
     * put() asked for a seek (a table's batch was dropped) and then threw RetriableException: hole
     * 1.
     */
    RETRIABLE_WITH_REWIND_PENDING,
    /**
     * A storage fault hit close() of a cooperative revocation while other partitions stay: holes 2,
     * 3.
     */
    CLOSE_OF_SOME_FAILED,
    /** A storage fault hit close() of all the task's partitions. */
    CLOSE_FAILED,
    /** A file rolled at file.max.bytes was finished between the task's calls. */
    FILE_FINISHED_IN_BACKGROUND,
    /** A worker crashed while it was finishing files. */
    CRASH_WHILE_FINISHING
  }

  /**
   * The world of a schedule: the rebalance protocol, the topics, one table per topic, one for all,
   * or (routed by field) a table per value of field r, which every partition writes to.
   */
  record Setup(
      boolean cooperative,
      List<String> topics,
      int partitionsPerTopic,
      boolean tablePerTopic,
      boolean routedByField,
      boolean upsert) {
    Setup(boolean cooperative, List<String> topics, int partitionsPerTopic, boolean tablePerTopic) {
      this(cooperative, topics, partitionsPerTopic, tablePerTopic, false, false);
    }

    Setup(
        boolean cooperative,
        List<String> topics,
        int partitionsPerTopic,
        boolean tablePerTopic,
        boolean routedByField) {
      this(cooperative, topics, partitionsPerTopic, tablePerTopic, routedByField, false);
    }

    /**
     * @param upsert whether the one-table world writes in upsert mode (drawn apart from {@code
     *     random}, so that the other worlds' schedules stay what their seeds gave before)
     */
    static Setup random(Random random, boolean upsert) {
      boolean cooperative = random.nextBoolean();
      return switch (random.nextInt(3)) {
        case 0 -> new Setup(cooperative, List.of("a", "b"), 2, true);
        case 1 -> new Setup(cooperative, List.of("a"), 3, false, false, upsert);
        default -> new Setup(cooperative, List.of("a", "b"), 2, false, true);
      };
    }

    List<TopicPartition> partitions() {
      List<TopicPartition> out = new ArrayList<>();
      for (String topic : topics) {
        for (int p = 0; p < partitionsPerTopic; p++) {
          out.add(new TopicPartition(topic, p));
        }
      }
      return out;
    }
  }

  /**
   * The Hadoop settings of every simulated writer: made once by the connector's own factory (a
   * fresh Configuration parses core-default.xml again) and copied per writer. delta.table.path, the
   * one setting that differs between schedules, never reaches Hadoop.
   */
  private static final Configuration HADOOP =
      withoutShippedDefaults(
          HadoopConfigurationFactory.create(new DeltaSinkConfig(writerSettings("file:///unused"))));

  /**
   * Keeps what the connector set (its own settings and the hadoop.* overrides) and drops the ~1,000
   * entries of Hadoop's core-default.xml, whose values the local file system, Parquet and Delta
   * take from their code defaults anyway. Why: Delta Standalone matches every entry against regexes
   * twice at each DeltaLog.forTable, and a writer opens a DeltaLog per table at every open() after
   * an eager rebalance; with the shipped defaults that was a fifth of the simulation's CPU. {@code
   * -Dsim.hadoopDefaults=true} keeps them, to check that they change nothing.
   */
  private static Configuration withoutShippedDefaults(Configuration full) {
    if (Boolean.getBoolean("sim.hadoopDefaults")) {
      return full;
    }
    Configuration own = new Configuration(false);
    own.setClassLoader(full.getClassLoader());
    for (Map.Entry<String, String> e : full) {
      String[] sources = full.getPropertySources(e.getKey()); // who set it, the last one wins
      if (sources == null || !sources[sources.length - 1].equals("core-default.xml")) {
        own.set(e.getKey(), e.getValue());
      }
    }
    return own;
  }

  private final String label;
  private final Random random;
  private final Path dir;
  private final Setup setup;
  private final SimKafka kafka;
  private final SimFaults faults;
  private final SimTables tables;
  private final List<SimWorkerSinkTask> members = new ArrayList<>();
  private final List<SimWorkerSinkTask> zombies = new ArrayList<>();

  /** Expelled members that learn it at their next poll (onPartitionsLost), then rejoin. */
  private final List<SimWorkerSinkTask> rejoining = new ArrayList<>();

  private final List<SimWorkerSinkTask> all = new ArrayList<>();
  private final Map<TopicPartition, SimWorkerSinkTask> owner = new HashMap<>();

  /** The worker each task runs on: its tasks commit through the worker's commit groups. */
  private final Map<SimWorkerSinkTask, CommitGroups> workerOf = new HashMap<>();

  private final List<CommitGroups> workers = new ArrayList<>();

  /** Where each worker's files are finished: when the schedule says, or when awaited. */
  private final Map<CommitGroups, SimFileFinisher> finishers = new HashMap<>();

  private final Set<CommitGroups> crashed = new HashSet<>();
  private long clock = 1_000_000;
  private int instances;
  final List<String> trace = new ArrayList<>();

  /** How often the schedule reached situations that once hid a hole (see {@link Situation}). */
  final Map<Situation, Integer> situations = new EnumMap<>(Situation.class);

  final List<String> violations = new ArrayList<>();

  /** A random schedule: the world, the events and the faults all follow from the seed. */
  Simulation(long seed, Path dir) {
    this(seed, new Random(seed), dir);
  }

  /** The world is the schedule's first draws, as it always was; upsert mode is drawn apart. */
  private Simulation(long seed, Random random, Path dir) {
    this(
        "seed " + seed,
        random,
        dir,
        Setup.random(random, new Random(seed * 17 + 3).nextBoolean()),
        new Random(seed * 31 + 7));
  }

  /**
   * A scripted schedule in the given world: nothing random happens unless the script asks for it.
   */
  Simulation(Setup setup, Path dir) {
    this("script", new Random(0), dir, setup, new Random(0));
  }

  private Simulation(String label, Random random, Path dir, Setup setup, Random faultRandom) {
    this.label = label;
    this.random = random;
    this.dir = dir;
    this.setup = setup;
    this.kafka = new SimKafka(this.setup.partitions());
    this.faults = SimFaults.register(dir, faultRandom);
    this.tables = new SimTables(APP_ID, this::tableOf);
  }

  /**
   * Runs the random schedule, drains, checks; returns the violations (empty: the contract held).
   */
  List<String> run(int steps) {
    trace(
        label
            + (setup.cooperative() ? " cooperative" : " eager")
            + (setup.routedByField()
                ? ", a table per value of field r"
                : setup.tablePerTopic() ? ", a table per topic" : ", one table")
            + (setup.upsert() ? ", upsert by key k" : ""));
    startTask();
    if (random.nextBoolean()) {
      startTask();
    }
    for (int i = 0; i < steps && violations.isEmpty(); i++) {
      step();
      checkNoTaskDied();
    }
    return finish();
  }

  /**
   * Heals every fault, lets the tasks commit everything, stops them, checks; returns the
   * violations.
   */
  List<String> finish() {
    if (violations.isEmpty()) {
      drain();
    }
    if (violations.isEmpty()) {
      checkTables();
    }
    return violations;
  }

  @Override
  public void close() {
    faults.close();
  }

  // ------------------------------------------------------------------ script

  SimFaults faults() {
    return faults;
  }

  /** Produces {@code n} ordinary records to the partition. */
  void produce(TopicPartition tp, int n) {
    for (int i = 0; i < n; i++) {
      kafka.produce(tp, false);
    }
    trace("produce " + n + " to " + tp);
  }

  /** Produces a record with a null value: errant (behavior.on.null.values=fail), never a row. */
  void producePoison(TopicPartition tp) {
    kafka.produce(tp, true);
    trace("produce a null value to " + tp);
  }

  /** One WorkerSinkTask iteration of the task: seeks, rebalance callbacks, fetch, put. */
  void iterate(SimWorkerSinkTask t) {
    t.iteration();
    if (t.lastDelivery.endsWith("-> RetriableException") && !t.context.seeks.isEmpty()) {
      observed(Situation.RETRIABLE_WITH_REWIND_PENDING);
    }
    trace(
        "iterate "
            + t.name
            + " "
            + t.assignment
            + ": "
            + t.lastDelivery
            + " seeks after: "
            + t.context.seeks);
    checkNoTaskDied();
  }

  void advanceClock(long ms) {
    clock += ms;
    trace("clock +" + ms + " ms");
  }

  /**
   * Starts a task instance on a worker of its own; it joins the group (its partitions come at its
   * first poll).
   */
  SimWorkerSinkTask startTask(int commitEvery, int maxPollRecords) {
    return startTask(commitEvery, maxPollRecords, newWorker());
  }

  /** Starts a task instance on the worker of {@code beside}: they share its commit groups. */
  SimWorkerSinkTask startTaskBeside(SimWorkerSinkTask beside, int commitEvery, int maxPoll) {
    return startTask(commitEvery, maxPoll, workerOf.get(beside));
  }

  /**
   * The group expels the task (a missed heartbeat); it keeps running as a zombie and does not learn
   * it until {@link #finish()}.
   */
  void expel(SimWorkerSinkTask t) {
    trace("expel " + t.name + " (it keeps running as a zombie)");
    leave(t);
    zombies.add(t);
  }

  private SimWorkerSinkTask startTask(int commitEvery, int maxPollRecords, CommitGroups worker) {
    String name = "task-" + instances++;
    SimWorkerSinkTask t =
        new SimWorkerSinkTask(
            name, kafka, this, context -> newWriter(context, worker), commitEvery, maxPollRecords);
    members.add(t);
    all.add(t);
    workerOf.put(t, worker);
    if (!workers.contains(worker)) {
      workers.add(worker);
    }
    trace("start " + name + " on worker " + workers.indexOf(worker));
    return t;
  }

  // ------------------------------------------------------------------ random schedule

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
        iterate(running.get(random.nextInt(running.size())));
      }
    } else if (r < 76) {
      clock += 200 + random.nextInt(1500);
    } else if (r < 80) {
      finishAFile();
    } else if (r < 88) {
      double[] levels = {0, 0, 0.1, 0.3, 0.7};
      faults.set(Kind.DATA_FILE_CREATE, levels[random.nextInt(levels.length)]);
      faults.set(Kind.DATA_FILE_CLOSE, levels[random.nextInt(levels.length)]);
      faults.set(Kind.COMMIT_BEFORE, levels[random.nextInt(levels.length)]);
      faults.set(Kind.COMMIT_AFTER, levels[random.nextInt(levels.length)] / 2);
      trace(
          "faults create="
              + faults.get(Kind.DATA_FILE_CREATE)
              + " close="
              + faults.get(Kind.DATA_FILE_CLOSE)
              + " commitBefore="
              + faults.get(Kind.COMMIT_BEFORE)
              + " commitAfter="
              + faults.get(Kind.COMMIT_AFTER));
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
        CommitGroups worker = workerOf.get(members.get(random.nextInt(members.size())));
        crashed.add(worker);
        if (finishers.get(worker).pending() > 0) {
          observed(Situation.CRASH_WHILE_FINISHING);
        }
        finishers.get(worker).crash();
        for (SimWorkerSinkTask t : running()) {
          if (workerOf.get(t) == worker) {
            trace("crash " + t.name);
            leave(t);
            t.stopped = true; // no close(), no stop(): the process is gone, and its commit groups
          }
        }
        if (members.isEmpty()) {
          startTask();
        }
      }
    } else if (r < 97) {
      if (!members.isEmpty()) {
        expel(members.get(random.nextInt(members.size())));
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
    faults.healAll();
    rejoining.addAll(zombies);
    zombies.clear();
    members.removeIf(m -> !m.alive());
    rejoining.removeIf(m -> !m.alive());
    if (members.isEmpty()) {
      startTask();
    }
    // The backlog in one poll, as Connect's default max.poll.records (500) would fetch it: with the
    // schedule's 1..20 the drain took 14 rounds and made more commits than the schedule itself.
    members.forEach(t -> t.maxPollRecords(500));
    rejoining.forEach(t -> t.maxPollRecords(500));
    // Three rounds at least (every task, rejoining zombies too, polls and gets due for a commit),
    // then until the tables hold every offset; allCommitted() only reads new commit files, so ask
    // every round.
    for (int round = 0; round < 400 && (round < 3 || !allCommitted()); round++) {
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
    for (CommitGroups worker : workers) {
      if (!crashed.contains(worker) && worker.size() > 0) {
        violations.add(
            "worker "
                + workers.indexOf(worker)
                + ": "
                + worker.size()
                + " commit groups outlive its tasks");
      }
    }
  }

  private boolean allCommitted() {
    if (setup.routedByField()) {
      for (String table : routedTables()) {
        Map<TopicPartition, Long> txns = tables.txnVersionsFromCommits(table, kafka.partitions());
        for (TopicPartition tp : kafka.partitions()) {
          if (txns.getOrDefault(tp, -1L) != lastRoutedTo(table, tp)) {
            return false;
          }
        }
      }
      return true;
    }
    Map<TopicPartition, Long> txns = tables.txnVersionsFromCommits(kafka.partitions());
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

  /**
   * A task on a new worker, or (half the time) on the worker of a running task: then they commit
   * through one commit group.
   */
  private void startTask() {
    List<SimWorkerSinkTask> running = running();
    CommitGroups worker =
        running.isEmpty() || random.nextBoolean()
            ? newWorker()
            : workerOf.get(running.get(random.nextInt(running.size())));
    startTask(2 + random.nextInt(4), 1 + random.nextInt(20), worker);
  }

  private CommitGroups newWorker() {
    SimFileFinisher finisher = new SimFileFinisher();
    CommitGroups worker = new CommitGroups(finisher);
    finishers.put(worker, finisher);
    return worker;
  }

  /** A file some worker is finishing in the background gets finished (uploaded, or failing). */
  void finishAFile() {
    List<SimFileFinisher> busy = new ArrayList<>();
    for (CommitGroups w : workers) {
      SimFileFinisher f = finishers.get(w);
      if (f != null && f.pending() > 0 && !crashed.contains(w)) {
        busy.add(f);
      }
    }
    if (!busy.isEmpty()) {
      busy.get(random.nextInt(busy.size())).finishOne(random);
      observed(Situation.FILE_FINISHED_IN_BACKGROUND);
      trace("a file finishes in the background");
    }
  }

  private static Map<String, String> writerSettings(String tablePath, boolean upsert) {
    Map<String, String> p = writerSettings(tablePath);
    if (upsert) {
      p.put("delta.write.mode", "upsert");
      p.put("delta.upsert.key.columns", "k");
    }
    return p;
  }

  private static Map<String, String> writerSettings(String tablePath) {
    Map<String, String> p = new HashMap<>();
    p.put("name", APP_ID);
    p.put("delta.table.path", tablePath);
    p.put("flush.interval.ms", String.valueOf(FLUSH_MS));
    // Files roll within a batch (the least the config allows), so files are being finished while
    // the task goes on.
    p.put("file.max.bytes", "1024");
    p.put("delta.commit.retry.timeout.ms", String.valueOf(24 * 3_600_000L));
    p.put("behavior.on.null.values", "fail");
    p.put("hadoop.fs.file.impl", SimFileSystem.class.getName());
    p.put("hadoop.fs.file.impl.disable.cache", "true");
    p.put("hadoop.delta.logStore.file.impl", SimLogStore.class.getName());
    return p;
  }

  private DeltaSinkWriter newWriter(SinkTaskContext context, CommitGroups worker) {
    String path =
        "file://"
            + dir.toAbsolutePath()
            + "/"
            + (setup.routedByField()
                ? "t-${field:r}"
                : setup.tablePerTopic() ? "${topic}" : "table");
    return new DeltaSinkWriter(
        new DeltaSinkConfig(writerSettings(path, setup.upsert())),
        context,
        new Configuration(HADOOP),
        context.errantRecordReporter(),
        // Real metrics: registering them must hold up under every open/close order Connect makes.
        SinkMetrics.of(new RecordingRegistry()),
        RecordOrigin.ORIGINAL,
        () -> clock,
        worker);
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
    if (setup.cooperative()) {
      List<TopicPartition> revoke = new ArrayList<>(member.assignment);
      revoke.removeAll(target);
      if (!revoke.isEmpty()) {
        trace(member.name + " revoked " + revoke);
        revoke(member, revoke);
      }
    } else {
      List<TopicPartition> revoke = new ArrayList<>(member.assignment);
      trace(member.name + " revoked (eager) " + revoke);
      revoke(member, revoke);
    }
    List<TopicPartition> assign = new ArrayList<>();
    for (TopicPartition tp : target) {
      if (!member.assignment.contains(tp) && !owner.containsKey(tp)) {
        assign.add(tp);
        owner.put(tp, member);
      }
    }
    if (!assign.isEmpty() || !setup.cooperative()) {
      trace(member.name + " assigned " + assign);
    }
    // The consumer calls onPartitionsAssigned at the end of every rebalance, also with no new
    // partitions (its javadoc): Connect then resumes fetching if the revocation emptied the batch
    // it
    // kept for redelivery. Skipping it here hid the hole of seed 14709 behind a redelivery.
    member.onPartitionsAssigned(assign);
  }

  private void revoke(SimWorkerSinkTask member, List<TopicPartition> revoke) {
    int faultsBefore = faults.injectedCount();
    member.onPartitionsRevoked(revoke);
    revoke.forEach(owner::remove);
    if (faults.injectedCount() > faultsBefore) {
      observed(
          member.assignment.isEmpty() ? Situation.CLOSE_FAILED : Situation.CLOSE_OF_SOME_FAILED);
    }
  }

  /** Round-robin over the partitions, by join order. */
  private Set<TopicPartition> targetAssignment(SimWorkerSinkTask member) {
    Set<TopicPartition> target = new LinkedHashSet<>();
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
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString()
        .lines()
        .filter(
            l ->
                !l.contains("org.junit") && !l.contains("jdk.internal") && !l.contains("java.base"))
        .limit(14)
        .collect(Collectors.joining("\n"));
  }

  private String tableOf(TopicPartition tp) {
    return dir.resolve(setup.tablePerTopic() ? tp.topic() : "table").toUri().toString();
  }

  /** The table of a record, by its topic or its field r (null: it names none, it is errant). */
  private String tableOf(TopicPartition tp, long offset) {
    if (!setup.routedByField()) {
      return tableOf(tp);
    }
    String route = SimKafka.route(tp, offset);
    return route.equals(SimKafka.NO_TABLE) ? null : routedTable(route);
  }

  private String routedTable(String route) {
    return dir.resolve("t-" + route).toUri().toString();
  }

  private List<String> routedTables() {
    return List.of(routedTable("r0"), routedTable("r1"), routedTable("r2"));
  }

  /** The offset of the partition's last record routed to the table (-1: none). */
  private long lastRoutedTo(String table, TopicPartition tp) {
    for (long o = kafka.endOffset(tp) - 1; o >= 0; o--) {
      if (!kafka.poison.contains(SimKafka.key(tp, o)) && table.equals(tableOf(tp, o))) {
        return o;
      }
    }
    return -1;
  }

  /** Records that are not rows: null values, and (routed by field) records naming no table. */
  private boolean errantRecord(TopicPartition tp, long offset) {
    return kafka.poison.contains(SimKafka.key(tp, offset)) || tableOf(tp, offset) == null;
  }

  /**
   * Upsert mode: the table holds, per key, the row of its last record, unless that record is a
   * tombstone (then none); nothing else; and every partition's txn version is its last offset.
   */
  private void checkUpsertTable() {
    String table = tableOf(kafka.partitions().get(0));
    Map<String, Integer> rows = tables.upsertRows(table, violations);
    Map<String, String> expected = new TreeMap<>();
    for (TopicPartition tp : kafka.partitions()) {
      Map<String, Long> last = new HashMap<>();
      for (long o = 0; o < kafka.endOffset(tp); o++) {
        last.put(SimKafka.rowKey(tp, o), o);
      }
      last.forEach(
          (k, o) -> {
            if (!kafka.poison.contains(SimKafka.key(tp, o))) {
              expected.put(SimKafka.key(tp, o), k);
            }
          });
    }
    for (Map.Entry<String, String> e : expected.entrySet()) {
      int n = rows.getOrDefault(e.getKey(), 0);
      if (n != 1) {
        violations.add(
            "key "
                + e.getValue()
                + ": its last state "
                + e.getKey()
                + " is in the table "
                + n
                + " times");
      }
    }
    for (String row : rows.keySet()) {
      if (!expected.containsKey(row)) {
        violations.add(row + " is in the table but is not its key's last state");
      }
    }
    Map<TopicPartition, Long> txns = tables.txnVersionsFromCommits(kafka.partitions());
    for (TopicPartition tp : kafka.partitions()) {
      long end = kafka.endOffset(tp);
      if (end > 0 && txns.getOrDefault(tp, -1L) != end - 1) {
        violations.add(tp + ": txn version " + txns.get(tp) + ", expected " + (end - 1));
      }
    }
    all.forEach(
        t ->
            t.context.errant.forEach(
                r -> violations.add("a change was reported errant: " + r + " by " + t.name)));
  }

  private void checkTables() {
    if (setup.upsert()) {
      checkUpsertTable();
      return;
    }
    List<String> paths =
        setup.routedByField()
            ? routedTables()
            : kafka.partitions().stream().map(this::tableOf).distinct().toList();
    // Per table, what it holds: each record must be in its own table, once.
    Map<String, Map<String, Integer>> rowsByTable = new HashMap<>();
    for (String path : paths) {
      rowsByTable.put(path, tables.rows(List.of(path), violations));
    }
    if (setup.routedByField()) {
      checkRoutedTxns(paths);
    }
    Map<TopicPartition, Long> txns =
        setup.routedByField() ? Map.of() : tables.txnVersions(kafka.partitions());
    for (TopicPartition tp : kafka.partitions()) {
      long end = kafka.endOffset(tp);
      List<Long> missing = new ArrayList<>();
      List<String> duplicated = new ArrayList<>();
      for (long o = 0; o < end; o++) {
        String key = SimKafka.key(tp, o);
        String own = tableOf(tp, o);
        int n = own == null ? 0 : rowsByTable.get(own).getOrDefault(key, 0);
        for (String other : paths) {
          if (!other.equals(own) && rowsByTable.get(other).containsKey(key)) {
            violations.add(key + " is in " + other + ", not its table " + own);
          }
        }
        boolean poison = errantRecord(tp, o);
        if (poison && n > 0) {
          violations.add(key + " is errant (null value, or names no table) but is in a table");
        } else if (!poison && n == 0) {
          missing.add(o);
        } else if (n > 1) {
          duplicated.add(o + " x" + n);
        }
      }
      if (!missing.isEmpty()) {
        violations.add(
            tp + ": offsets missing from the table: " + missing + " (of 0.." + (end - 1) + ")");
      }
      if (!duplicated.isEmpty()) {
        violations.add(tp + ": offsets in the table more than once: " + duplicated);
      }
      long expected = end - 1;
      if (!setup.routedByField() && end > 0 && txns.getOrDefault(tp, -1L) != expected) {
        violations.add(
            tp + ": txn version " + txns.get(tp) + ", expected the last offset " + expected);
      }
    }
    Set<String> errantKeys = new HashSet<>();
    all.forEach(
        t ->
            t.context.errant.forEach(
                r ->
                    errantKeys.add(
                        SimKafka.key(
                            new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset()))));
    for (String p : kafka.poison) {
      if (!errantKeys.contains(p)) {
        violations.add(p + " (null value) never reached the errant record reporter");
      }
    }
    for (TopicPartition tp : kafka.partitions()) {
      for (long o = 0; o < kafka.endOffset(tp); o++) {
        String key = SimKafka.key(tp, o);
        if (errantRecord(tp, o) && !kafka.poison.contains(key) && !errantKeys.contains(key)) {
          violations.add(key + " names no table but never reached the errant record reporter");
        }
      }
    }
  }

  /** Routed by field: each table's txn version of a partition is its last record routed there. */
  private void checkRoutedTxns(List<String> paths) {
    for (String table : paths) {
      Map<TopicPartition, Long> txns = tables.txnVersions(table, kafka.partitions());
      for (TopicPartition tp : kafka.partitions()) {
        long expected = lastRoutedTo(table, tp);
        long actual = txns.getOrDefault(tp, -1L);
        if (actual != expected) {
          violations.add(
              table
                  + ": "
                  + tp
                  + " txn version "
                  + actual
                  + ", expected its last record "
                  + expected);
        }
      }
    }
  }

  private void observed(Situation situation) {
    situations.merge(situation, 1, Integer::sum);
  }

  private void trace(String line) {
    if (Boolean.getBoolean("sim.log")) {
      // Interleaved with the writer's own lines: which event each commit or rewind followed.
      LoggerFactory.getLogger(Simulation.class).info("TRACE {}", line);
    }
    trace.add(line);
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
