package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kcdelta.DeltaSinkTask;
import io.kcdelta.it.infra.ChildJvm;
import io.kcdelta.logstore.CrashingDynamoDbLogStore;
import io.kcdelta.table.FakeSinkContext;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.management.ObjectName;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once on s3a:// + DynamoDB under the faults a Connect cluster sees: a worker killed,
 * rebalances, a zombie task, a crash inside a commit, a foreign writer, poison records.
 */
class S3DynamoDbFaultsIT extends AbstractFaultIT {
  /**
   * Over a minute each on 2 cores; {@code -Dsurefire.excludedGroups=heavy} leaves them out of a
   * quick run.
   */
  static final String HEAVY = "heavy";

  // ------------------------------------------------------------------ 1. worker killed

  @Test
  @Tag(HEAVY)
  void workerKilledMidStreamAndBack() throws Exception {
    workerKilledScenario();
  }

  // ------------------------------------------------------------------ 2. rebalances

  @Test
  @Tag(HEAVY)
  void repeatedRebalances() throws Exception {
    long t0 = System.nanoTime();
    try (Pipeline p = new Pipeline("rebalance")) {
      p.configure(Map.of(), TASKS);
      try (Pipeline.Background bg = p.produceInBackground(50, 100)) {
        awaitSomeCommitsOfEveryPartition(p);
        p.configure(Map.of("tasks.max", "3"), 3);
        awaitProgress(p);
        p.configure(Map.of("tasks.max", "10"), 10);
        awaitProgress(p);
        p.configure(Map.of("tasks.max", "5"), 5);
        awaitProgress(p);
        p.configure(Map.of(), TASKS);
        awaitProgress(p);
        connect.pauseConnector(p.connector);
        connect
            .assertions()
            .assertConnectorAndExactlyNumTasksArePaused(p.connector, TASKS, "not paused");
        int before = p.records.partitionOfId.size();
        await(
            "records produced while paused",
            30_000,
            () -> p.records.partitionOfId.size() > before + 1_000,
            () -> "produced " + p.records.partitionOfId.size());
        connect.resumeConnector(p.connector);
        p.awaitTasksRunning(TASKS);
        awaitProgress(p);
        connect.restartConnectorAndTasks(p.connector, false, true, false);
        p.awaitTasksRunning(TASKS);
        awaitProgress(p);
        connect.restartTask(p.connector, 3);
        p.awaitTasksRunning(TASKS);
        awaitProgress(p);
      }
      p.awaitDurable(120_000);
      Verified verified = p.verify(Set.of());
      log(
          "scenario 2 (tasks.max 8→3→10→5→8, pause/resume, restart all, restart one): %s; %.1f s",
          verified, secondsSince(t0));
    }
  }

  // ------------------------------------------------------------------ 3. zombie

  /**
   * A second instance of a task (the zombie) opens partitions 0 and 1 while the connector owns
   * them, buffers the next records of those partitions, and tries to commit them after the real
   * owner did.
   */
  @Test
  void zombieCommitAfterTheNewOwnerIsRefused() throws Exception {
    long t0 = System.nanoTime();
    try (Pipeline p = new Pipeline("zombie")) {
      p.configure(Map.of(), TASKS);
      p.produce(8_000);
      p.awaitDurable(120_000);
      List<TopicPartition> stolen =
          List.of(new TopicPartition(p.topic, 0), new TopicPartition(p.topic, 1));
      Map<TopicPartition, Long> resumeAt = new HashMap<>();
      p.records
          .lastOffsets()
          .forEach(
              (tp, o) -> {
                if (stolen.contains(tp)) {
                  resumeAt.put(tp, o + 1);
                }
              });

      FakeSinkContext zombieContext = new FakeSinkContext();
      DeltaSinkTask zombie = new DeltaSinkTask();
      zombie.initialize(zombieContext);
      Map<String, String> taskConfig = new HashMap<>(p.config());
      taskConfig.put("name", p.connector);
      // A task id of its own: its metrics are published beside the real tasks', not over them.
      taskConfig.put("kcdelta.task.id", "99");
      zombie.start(taskConfig);
      try {
        zombie.open(stolen);
        assertEquals(resumeAt, zombieContext.seeks, "the zombie resumes where the table says");
        Set<Long> before = p.producedIds();

        p.produce(8_000);
        p.awaitDurable(120_000);
        long version = tableVersion(p);

        // The zombie fetched the first half of what the owner committed since (its batch ends
        // earlier
        // than the owner's commit, so the table cannot hold exactly its offsets).
        List<SinkRecord> batch = firstHalfPerPartition(sinkRecords(p, stolen, before));
        zombieContext.seeks.clear();
        zombie.put(batch);
        zombie.close(stolen);

        assertEquals(version, tableVersion(p), "the zombie must not commit");
        // Refused, its batch is dropped; the partitions it closes are not its to seek any more
        // (Connect
        // would apply the seek at the next poll and fail the task): their owner reads the table.
        assertEquals(Map.of(), zombieContext.seeks, "no seek of the partitions being closed");
        // What an operator sees: the zombie's refused batch in its metrics (own JMX registry,
        // as on Connect before 4.1, since the fake context offers no plugin metrics).
        Object fenced =
            ManagementFactory.getPlatformMBeanServer()
                .getAttribute(
                    new ObjectName(
                        "kafka.connect:type=plugins,connector=" + p.connector + ",task=99"),
                    "commits-fenced-total");
        assertEquals(1.0, fenced, "the zombie's metrics count its fenced batch");
        Verified verified = p.verify(Set.of());
        log(
            "scenario 3 (zombie with %d buffered records of %s refused after the owner committed): %s; %.1f s",
            batch.size(), stolen, verified, secondsSince(t0));
      } finally {
        zombie.stop();
      }
    }
  }

  private static List<SinkRecord> firstHalfPerPartition(List<SinkRecord> records) {
    Map<Integer, List<SinkRecord>> byPartition =
        records.stream()
            .collect(
                Collectors.groupingBy(
                    SinkRecord::kafkaPartition, TreeMap::new, Collectors.toList()));
    List<SinkRecord> out = new ArrayList<>();
    byPartition.values().forEach(l -> out.addAll(l.subList(0, l.size() / 2)));
    return out;
  }

  /**
   * The records of {@code partitions} produced after {@code before}, as Connect would deliver them.
   */
  private static List<SinkRecord> sinkRecords(
      Pipeline p, List<TopicPartition> partitions, Set<Long> before) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), false);
    List<SinkRecord> out = new ArrayList<>();
    p.records.partitionOfId.entrySet().stream()
        .filter(e -> partitions.contains(e.getValue()) && !before.contains(e.getKey()))
        .sorted(
            (a, b) ->
                Long.compare(
                    p.records.offsetOfId.get(a.getKey()), p.records.offsetOfId.get(b.getKey())))
        .forEach(
            e -> {
              long id = e.getKey();
              SchemaAndValue v = converter.toConnectData(p.topic, OrderRecords.json(id));
              out.add(
                  new SinkRecord(
                      p.topic,
                      e.getValue().partition(),
                      Schema.STRING_SCHEMA,
                      Long.toString(id),
                      v.schema(),
                      v.value(),
                      p.records.offsetOfId.get(id)));
            });
    return out;
  }

  // ------------------------------------------------------------------ 6. crash inside a commit

  /**
   * The log store of one task dies right after its conditional PutItem won version N and before
   * N.json exists. A later reader or writer must finish that commit from the temp file DynamoDB
   * names, and the batch must be in the table once.
   */
  @Test
  void crashBetweenDynamoDbPutAndCopyIsCompletedByTheNextWriter() throws Exception {
    long t0 = System.nanoTime();
    try (Pipeline p = new Pipeline("crash")) {
      p.configure(
          Map.of("hadoop.delta.logStore.s3a.impl", CrashingDynamoDbLogStore.class.getName()),
          TASKS);
      p.produce(8_000);
      p.awaitDurable(120_000);
      CrashingDynamoDbLogStore.crashOnceAfter(p.table, "ENTRY_PUT");
      Path crashed;
      try (Pipeline.Background bg = p.produceInBackground(100, 100)) {
        await(
            "a commit to crash",
            60_000,
            () -> CrashingDynamoDbLogStore.crashed() != null,
            p::describeTasks);
        crashed = CrashingDynamoDbLogStore.crashed();
        log("crashed while committing %s", crashed);
        long v = tableVersion(p);
        await("commits after the crash", 60_000, () -> tableVersion(p) > v + 2, p::describeTasks);
      }
      p.awaitDurable(120_000);
      Verified verified = p.verify(Set.of());

      Map<String, String> entry = CrashingDynamoDbLogStore.entry(dynamo, DDB_TABLE, crashed);
      assertEquals(
          "true", entry.get("complete"), "the crashed commit's entry is completed: " + entry);
      FileSystem fs = crashed.getFileSystem(readerConf());
      String committed = read(fs, crashed);
      String temp = read(fs, new Path(crashed.getParent(), entry.get("tempPath")));
      assertEquals(
          temp,
          committed,
          crashed.getName() + " is the crashed writer's temp file, copied by recovery");
      assertTrue(committed.contains("\"txn\"") && committed.contains("\"add\""), committed);
      assertTrue(
          p.status().tasks().stream().allMatch(t -> t.state().equals("RUNNING")),
          p.describeTasks());
      log(
          "scenario 6 (crash after the DynamoDB put of %s, before the copy): %s; %.1f s",
          crashed.getName(), verified, secondsSince(t0));
    }
  }

  private static String read(FileSystem fs, Path file) throws Exception {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  // ------------------------------------------------------------------ 7. foreign writer

  @Test
  @Tag(HEAVY)
  void foreignWriterInAnotherJvmAndTheConnectorBothLand() throws Exception {
    long t0 = System.nanoTime();
    int commits = 6;
    int rows = 500;
    long idFrom = 10_000_000L;
    String foreignApp = "foreign-writer";
    try (Pipeline p = new Pipeline("foreign")) {
      p.configure(Map.of(), TASKS);
      ChildJvm foreign;
      try (Pipeline.Background bg = p.produceInBackground(50, 100)) {
        awaitSomeCommitsOfEveryPartition(p);
        foreign =
            ChildJvm.start(
                ForeignDeltaWriter.class.getName(),
                List.of(
                    p.table,
                    s3.endpoint().toString(),
                    dynamo.endpoint().toString(),
                    DDB_TABLE,
                    foreignApp,
                    String.valueOf(idFrom),
                    String.valueOf(commits),
                    String.valueOf(rows),
                    "0"));
        try {
          assertEquals(0, foreign.await(240_000), foreign.output());
        } finally {
          foreign.close();
        }
      }
      p.awaitDurable(120_000);
      Set<Long> foreignIds =
          LongStream.range(idFrom, idFrom + (long) commits * rows)
              .boxed()
              .collect(Collectors.toSet());
      Verified verified = p.verify(foreignIds);
      assertEquals(
          (long) commits - 1,
          DeltaTableContents.txnVersions(readerConf(), p.table, List.of(foreignApp))
              .get(foreignApp),
          "the foreign writer's last txn version");
      long foreignCommits = foreign.output().lines().filter(l -> l.startsWith("COMMITTED")).count();
      assertEquals(commits, foreignCommits, foreign.output());
      log(
          "scenario 7 (foreign JVM: %d commits, %d rows, while the connector wrote %d): %s; %.1f s",
          commits, foreignIds.size(), p.records.partitionOfId.size(), verified, secondsSince(t0));
    }
  }

  // ------------------------------------------------------------------ 8. poison input

  /**
   * Kinds of records the table cannot take; each is sent to every partition between good records.
   */
  private static List<byte[]> poisonValues() {
    String good = new String(OrderRecords.json(1), StandardCharsets.UTF_8);
    return java.util.Arrays.asList(
        "this is not json".getBytes(StandardCharsets.UTF_8),
        // A value that does not match its own schema (null for a required field): the converter
        // rejects
        // it. (Wrong JSON types would not do: JsonConverter reads "one" for an int64 as 0, "t1" as
        // an array.)
        good.replace("\"id\":1,", "\"id\":null,").getBytes(StandardCharsets.UTF_8),
        // A valid record whose id is a string: the table's id is a long, no evolution can take it.
        incompatible().getBytes(StandardCharsets.UTF_8),
        // No partition column.
        "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"fields\":[{\"field\":\"id\",\"type\":\"int64\",\"optional\":false}]},\"payload\":{\"id\":5}}"
            .getBytes(StandardCharsets.UTF_8),
        // A tombstone, with behavior.on.null.values=fail.
        null);
  }

  private static String incompatible() {
    return "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"fields\":[{\"field\":\"id\",\"type\":\"string\","
        + "\"optional\":false},{\"field\":\"region\",\"type\":\"string\",\"optional\":false}]},"
        + "\"payload\":{\"id\":\"x\",\"region\":\"eu\"}}";
  }

  @Test
  void poisonRecordsGoToTheDeadLetterQueue() throws Exception {
    long t0 = System.nanoTime();
    String dlq = "poison-dlq-errors";
    connect.kafka().createTopic(dlq, 1);
    try (Pipeline p = new Pipeline("poison-dlq")) {
      p.configure(
          Map.of(
              "errors.tolerance",
              "all",
              "errors.deadletterqueue.topic.name",
              dlq,
              "errors.deadletterqueue.topic.replication.factor",
              "1",
              "errors.deadletterqueue.context.headers.enable",
              "true",
              "behavior.on.null.values",
              "fail"),
          TASKS);
      Set<String> poisonKeys = new HashSet<>();
      for (int round = 0; round < 2; round++) {
        p.produce(4_000);
        poisonKeys.addAll(producePoison(p, round));
      }
      p.produce(4_000);
      p.awaitDurable(120_000);
      Verified verified = p.verify(Set.of());
      ConsumerRecords<byte[], byte[]> dead =
          connect.kafka().consume(poisonKeys.size(), 60_000, dlq);
      Map<String, Integer> deadKeys = new TreeMap<>();
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        deadKeys.merge(new String(r.key(), StandardCharsets.UTF_8), 1, Integer::sum);
      }
      assertEquals(poisonKeys, deadKeys.keySet(), "poison records in the DLQ");
      assertTrue(
          deadKeys.values().stream().allMatch(c -> c == 1),
          "each poison record once in the DLQ: " + deadKeys);
      log(
          "scenario 8a (errors.tolerance=all + DLQ): %d poison records of %d kinds in the DLQ; %s; %.1f s",
          poisonKeys.size(), poisonValues().size(), verified, secondsSince(t0));
    }
  }

  /** Sends every kind of poison to every partition; returns their keys. */
  private Set<String> producePoison(Pipeline p, int round) throws Exception {
    Set<String> keys = new HashSet<>();
    List<byte[]> values = poisonValues();
    List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
    for (int partition = 0; partition < PARTITIONS; partition++) {
      for (int kind = 0; kind < values.size(); kind++) {
        String key = "poison-" + round + "-" + partition + "-" + kind;
        keys.add(key);
        sent.add(
            p.producer.send(
                new ProducerRecord<>(
                    p.topic, partition, key.getBytes(StandardCharsets.UTF_8), values.get(kind))));
      }
    }
    p.producer.flush();
    for (java.util.concurrent.Future<?> f : sent) {
      f.get();
    }
    return keys;
  }

  @Test
  void poisonRecordFailsTheTaskWithToleranceNoneAndResumesAfterTheFix() throws Exception {
    long t0 = System.nanoTime();
    String dlq = "poison-strict-errors";
    connect.kafka().createTopic(dlq, 1);
    try (Pipeline p = new Pipeline("poison-strict")) {
      p.configure(Map.of("errors.tolerance", "none"), TASKS);
      p.produce(4_000);
      p.awaitDurable(120_000);
      int partition = 3;
      var md =
          p.producer
              .send(
                  new ProducerRecord<>(
                      p.topic,
                      partition,
                      "poison".getBytes(StandardCharsets.UTF_8),
                      incompatible().getBytes(StandardCharsets.UTF_8)))
              .get();
      long poisonOffset = md.offset();
      p.produce(4_000);

      await(
          "a task to fail on the poison record",
          120_000,
          () -> p.status().tasks().stream().anyMatch(t -> t.state().equals("FAILED")),
          p::describeTasks);
      String trace = traces(p.status()).get(0);
      String where = p.topic + "-" + partition + "@" + poisonOffset;
      assertTrue(trace.contains("Record " + where + " cannot be written to " + p.table), trace);
      assertTrue(trace.contains("id"), trace);
      TopicPartition tp = new TopicPartition(p.topic, partition);
      long durable = p.txnVersions(List.of(p.appId(tp))).get(p.appId(tp));
      assertTrue(
          durable < poisonOffset,
          "txn version "
              + durable
              + " of "
              + tp
              + " must stay below the poison at "
              + poisonOffset);
      DeltaTableContents contents = DeltaTableContents.read(readerConf(), p.table);
      long producedAfterPoison =
          p.records.offsetOfId.entrySet().stream()
              .filter(
                  e ->
                      tp.equals(p.records.partitionOfId.get(e.getKey()))
                          && e.getValue() > poisonOffset)
              .count();
      long committedAfterPoison =
          contents.idCounts().keySet().stream()
              .filter(
                  id ->
                      tp.equals(p.records.partitionOfId.get(id))
                          && p.records.offsetOfId.get(id) > poisonOffset)
              .count();
      assertEquals(0, committedAfterPoison, "rows of " + tp + " after the poison record");
      String firstLine =
          trace.lines().filter(l -> l.contains("cannot be written")).findFirst().orElse(trace);
      log("scenario 8b: task failed with: %s", firstLine.trim());

      // The fix: let errant records go to a DLQ; restart what failed.
      p.configure(
          Map.of(
              "errors.tolerance",
              "all",
              "errors.deadletterqueue.topic.name",
              dlq,
              "errors.deadletterqueue.topic.replication.factor",
              "1"),
          TASKS);
      connect.restartConnectorAndTasks(p.connector, true, true, false);
      p.awaitTasksRunning(TASKS);
      p.produce(2_000);
      p.awaitDurable(120_000);
      Verified verified = p.verify(Set.of());
      ConsumerRecords<byte[], byte[]> dead = connect.kafka().consume(1, 60_000, dlq);
      assertEquals("poison", new String(dead.iterator().next().key(), StandardCharsets.UTF_8));
      assertFalse(
          p.status().tasks().stream().anyMatch(t -> t.state().equals("FAILED")), p.describeTasks());
      log(
          "scenario 8b (errors.tolerance=none, fixed, restarted): poison at %s, %d rows of %s after it not committed "
              + "before the fix; %s; %.1f s",
          where, producedAfterPoison, tp, verified, secondsSince(t0));
    }
  }

  // ------------------------------------------------------------------ helpers

  /** Every partition has a txn version (some commit of it is durable). */
  private void awaitSomeCommitsOfEveryPartition(Pipeline p) throws InterruptedException {
    Set<String> appIds = new HashSet<>();
    for (int i = 0; i < PARTITIONS; i++) {
      appIds.add(p.appId(new TopicPartition(p.topic, i)));
    }
    await(
        "a commit of every partition",
        120_000,
        () -> p.txnVersions(appIds).values().stream().allMatch(v -> v >= 0),
        p::describeTasks);
  }

  /** A few more commits land (the table keeps moving under the current assignment). */
  private void awaitProgress(Pipeline p) throws InterruptedException {
    long v = tableVersion(p);
    await("commits after version " + v, 60_000, () -> tableVersion(p) >= v + 3, p::describeTasks);
  }
}
