package io.kcdelta.table;

import io.delta.standalone.DeltaLog;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.table.DeltaCommitter.Outcome;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Commit groups by (txn appId prefix, table): the appId prefix names the connector inside the
 * table, so two connectors never share a group. One registry per JVM ({@link #jvm()}): the tasks of
 * a connector in a worker share the plugin's class loader and nothing else.
 */
public final class CommitGroups {
  private static final CommitGroups JVM = new CommitGroups();

  private final Map<String, Shared> groups = new HashMap<>();

  private record Shared(CommitGroup group, Set<Object> members) {}

  /** The registry of this JVM, the one worker it runs. */
  public static CommitGroups jvm() {
    return JVM;
  }

  /** A registry of its own: a simulated worker. */
  public CommitGroups() {}

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
    if (!config.commitGroup()) {
      return create(path, conf, config);
    }
    String key = config.txnAppIdPrefix() + "\n" + path;
    synchronized (groups) {
      Shared shared =
          groups.computeIfAbsent(key, k -> new Shared(create(path, conf, config), new HashSet<>()));
      shared.members.add(member);
      return shared.group;
    }
  }

  /** The member writes no more to {@code group}: the last one to leave drops it. */
  void leave(Object member, CommitGroup group) {
    group.leave(member);
    synchronized (groups) {
      groups
          .values()
          .removeIf(s -> s.group == group && s.members.remove(member) && s.members.isEmpty());
    }
  }

  /** Lingers a tenth of the flush interval, at most 2 s, for the other members' batches. */
  static long lingerMs(DeltaSinkConfig config) {
    return Math.min(config.flushIntervalMs() / 10, 2_000);
  }

  private static CommitGroup create(String path, Configuration conf, DeltaSinkConfig config) {
    LogCommitter committer = new LogCommitter(path, conf, config);
    return new CommitGroup(
        lingerMs(config), committer, appIds -> DeltaCommitter.read(committer.log(), appIds));
  }

  /**
   * Commits through the group's Delta log, opened on first use (by a task's read or commit, where
   * its failure is retried like any other read or commit).
   */
  private static final class LogCommitter
      implements Function<List<CommitGroup.Entry>, List<Outcome>> {
    private final Path root;
    private final Configuration conf;
    private final DeltaCommitter committer;
    private DeltaLog log;

    LogCommitter(String path, Configuration conf, DeltaSinkConfig config) {
      this.root = new Path(path);
      this.conf = conf;
      this.committer = new DeltaCommitter(config.txnAppIdPrefix(), config.schemaEvolution());
    }

    synchronized DeltaLog log() {
      if (log == null) {
        log = Unchecked.call(() -> DeltaLog.forTable(conf, root));
      }
      return log;
    }

    @Override
    public List<Outcome> apply(List<CommitGroup.Entry> entries) {
      return committer.commit(log(), root, entries);
    }
  }
}
