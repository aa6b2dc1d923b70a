package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.delta.TableLog;
import io.kcdelta.delta.upsert.KeyIndex;
import io.kcdelta.delta.upsert.KeyedDeletes;
import io.kcdelta.maintenance.TableMaintenance;
import io.kcdelta.table.DeltaCommitter.Outcome;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * Commit groups by (txn appId prefix, table): the appId prefix names the connector inside the
 * table, so two connectors never share a group. One registry per JVM ({@link #jvm()}): the tasks of
 * a connector in a worker share the plugin's class loader and nothing else.
 */
public final class CommitGroups {
  private static final CommitGroups JVM =
      new CommitGroups(
          backgroundThread(), TableMaintenance.backgroundThread(), FileFinisher.workerPool());

  private final Map<String, Shared> groups = new HashMap<>();

  /** Where the groups write their tables' checkpoints ({@link LogCheckpoints}). */
  private final Executor checkpoints;

  /** Where the groups' tables are compacted and cleaned (null: they are not). */
  private final ScheduledExecutorService maintenanceThread;

  /** Where the members' data files are finished. */
  private final FileFinisher finisher;

  /** The maintenance of each group's table, if its config asks for any. Guarded by groups. */
  private final Map<CommitGroup, TableMaintenance> maintenance = new IdentityHashMap<>();

  private record Shared(CommitGroup group, Set<Object> members) {}

  /** The registry of this JVM, the one worker it runs. */
  public static CommitGroups jvm() {
    return JVM;
  }

  /**
   * A registry of its own: a simulated worker. It writes checkpoints on the committing thread, as
   * Delta writers usually do, and maintains no table, which keeps a simulation deterministic.
   */
  public CommitGroups() {
    this(FileFinisher.inline());
  }

  /** A simulated worker whose members' files are finished by {@code finisher}. */
  public CommitGroups(FileFinisher finisher) {
    this(Runnable::run, null, finisher);
  }

  /** A registry that hands the writing of checkpoints to {@code checkpoints}. */
  CommitGroups(Executor checkpoints) {
    this(checkpoints, null, FileFinisher.inline());
  }

  /** A registry that maintains its tables on {@code maintenanceThread}. */
  CommitGroups(
      Executor checkpoints, ScheduledExecutorService maintenanceThread, FileFinisher finisher) {
    this.checkpoints = checkpoints;
    this.maintenanceThread = maintenanceThread;
    this.finisher = finisher;
  }

  /** Where the members' data files are finished. */
  FileFinisher finisher() {
    return finisher;
  }

  /**
   * One thread for the checkpoints of every table this worker writes: a checkpoint costs CPU that
   * put() needs too, and waiting checkpoints of a table merge into one. It ends when idle.
   */
  private static Executor backgroundThread() {
    return WorkerThreads.pool("kcdelta-delta-checkpoints", 1);
  }

  /** Groups with members, for tests that check none outlives its tasks. */
  public int size() {
    synchronized (groups) {
      return groups.size();
    }
  }

  /**
   * The group the member commits {@code path} through: shared when {@link
   * DeltaSinkConfig#commitGroup()}, else one of its own.
   */
  CommitGroup join(Object member, String path, Configuration conf, DeltaSinkConfig config) {
    synchronized (groups) {
      if (!config.commitGroup()) {
        return create(path, conf, config);
      }
      String key = config.txnAppIdPrefix() + "\n" + path;
      Shared shared =
          groups.computeIfAbsent(key, k -> new Shared(create(path, conf, config), new HashSet<>()));
      shared.members.add(member);
      return shared.group;
    }
  }

  /**
   * The member maintains the group's table (compaction, orphan cleanup), or no longer does; the
   * worker maintains it while any member does.
   */
  void maintainer(Object member, CommitGroup group, boolean maintains) {
    synchronized (groups) {
      TableMaintenance m = maintenance.get(group);
      if (m != null) {
        m.maintainer(member, maintains);
      }
    }
  }

  /** The member writes no more to {@code group}: the last one to leave drops it. */
  void leave(Object member, CommitGroup group) {
    group.leave(member);
    synchronized (groups) {
      groups
          .values()
          .removeIf(s -> s.group == group && s.members.remove(member) && s.members.isEmpty());
      boolean live = groups.values().stream().anyMatch(s -> s.group == group);
      TableMaintenance m = live ? maintenance.get(group) : maintenance.remove(group);
      if (m != null && live) {
        m.maintainer(member, false);
      } else if (m != null) {
        m.stop();
      }
    }
  }

  /** Lingers a tenth of the flush interval, at most 2 s, for the other members' batches. */
  static long lingerMs(DeltaSinkConfig config) {
    return Math.min(config.flushIntervalMs() / 10, 2_000);
  }

  private CommitGroup create(String path, Configuration conf, DeltaSinkConfig config) {
    LogCommitter committer = new LogCommitter(path, conf, config, checkpoints);
    CommitGroup group = new CommitGroup(lingerMs(config), committer, committer::read);
    if (maintenanceThread != null && TableMaintenance.wanted(config)) {
      maintenance.put(
          group,
          new TableMaintenance(
              committer::log, path, conf, config, committer::committed, maintenanceThread));
    }
    return group;
  }

  /**
   * Commits through the group's Delta log, which reads the table on first use (by a task's read or
   * commit, where its failure is retried like any other read or commit).
   */
  private static final class LogCommitter
      implements Function<List<CommitGroup.Entry>, List<Outcome>> {
    private final TableLog log;
    private final DeltaCommitter committer;
    private final LogCheckpoints checkpoints;
    private final KeyedDeletes deletes;

    LogCommitter(String path, Configuration conf, DeltaSinkConfig config, Executor checkpoints) {
      this.log = new TableLog(path, conf, DeltaCommitter.ENGINE_INFO);
      this.committer = DeltaCommitter.of(config);
      this.checkpoints = new LogCheckpoints(log, conf, checkpoints);
      this.deletes = new KeyedDeletes(log, conf, KeyIndex.jvm());
    }

    TableLog log() {
      return log;
    }

    DeltaCommitter.LogRead read(Set<String> appIds) {
      return committer.read(log, appIds);
    }

    @Override
    public List<Outcome> apply(List<CommitGroup.Entry> entries) {
      List<Outcome> outcomes = committer.commit(log, entries, deletes);
      outcomes.stream()
          .mapToLong(o -> o instanceof DeltaCommitter.Committed c ? c.version() : -1)
          .max()
          .ifPresent(this::committed);
      return outcomes;
    }

    /** A commit through the log (the group's, or a compaction's) made {@code version}. */
    void committed(long version) {
      checkpoints.committed(version);
    }
  }
}
