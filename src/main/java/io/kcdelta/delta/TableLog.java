package io.kcdelta.delta;

import io.delta.storage.CloseableIterator;
import io.delta.storage.LogStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * One Delta table's log as this JVM's writers use it: its state brought up to date by reading only
 * the commits since the last look, and commits created put-if-absent through the table's log store,
 * rebased onto the winners when another writer takes the version first. The only class, with the
 * rest of this package, that knows Delta's log and Delta Kernel.
 *
 * <p>The commit is ours, not Kernel's: a Kernel transaction carries one {@code txn} action, a
 * commit of ours one per Kafka partition. It follows the protocol's rules for a writer: see {@link
 * CommitActions} for the actions, {@link CommitPlanner} for the conflict check, {@link
 * TableFeatures} for the features it implements.
 *
 * <p>Thread-safe: reads of the state are serialized; a commit's write runs outside that lock. The
 * table logs of one JVM take turns to commit to a table (a fair lock per path): they would only
 * take each other's versions. Writers in other JVMs still race, and back off at random after losing
 * a few versions in a row.
 */
public final class TableLog {
  /** More commits than this since the known version: load the state anew from a checkpoint. */
  static final int MAX_COMMITS_FOLDED = 100;

  /** A commit gives up after this many versions lost, or this long, whichever comes first. */
  static final int MAX_ATTEMPTS = 200;

  static final long MAX_COMMIT_MS = 60_000;

  /**
   * The Hadoop setting ({@code hadoop.kcdelta.table.cooperate.in.jvm}) by which the table logs of
   * one JVM take turns to commit to a table and share the newest state they read ({@link
   * SharedTableLogs}; true by default; false: each acts as if in a JVM of its own).
   */
  public static final String COOPERATE_IN_JVM = "kcdelta.table.cooperate.in.jvm";

  private static final Pattern COMMIT_FILE = Pattern.compile("\\d{20}\\.json");

  private final String path;
  private final Path root;
  private final Path logPath;
  private final Configuration conf;
  private final String engineInfo;
  private final String logStoreClass;

  /** What this JVM's logs of the table share; null when they do not cooperate. */
  private final SharedTableLogs shared;

  private LogStore store;
  private KernelLog kernel;

  /** As last read or committed; null before the first read. Guarded by this. */
  private LogState state;

  /**
   * Opens nothing yet: the first read does (so its failure is a read's, retried like any other).
   *
   * @param engineInfo the commitInfo's engineInfo
   */
  public TableLog(String path, Configuration conf, String engineInfo) {
    this.path = path;
    this.root = new Path(path);
    this.logPath = new Path(root, "_delta_log");
    this.conf = conf;
    this.engineInfo = engineInfo;
    this.logStoreClass = LogStores.className(root, conf);
    this.shared = conf.getBoolean(COOPERATE_IN_JVM, true) ? SharedTableLogs.of(path) : null;
  }

  public String path() {
    return path;
  }

  public Path root() {
    return root;
  }

  // ---------------------------------------------------------------- reading

  /** The table as of its latest version, reading only the commits since the last look. */
  public LogState update() {
    return advance().state();
  }

  /** The state as last read or committed, without looking at the log (null: never read). */
  public synchronized LogState cached() {
    return state;
  }

  /**
   * The state now, and the commits since the previous state (null: the state was loaded anew, from
   * a checkpoint, so which commits came between is not known).
   */
  private record Advance(LogState state, List<LogCommit> commits) {}

  private synchronized Advance advance() {
    LogState known = state;
    // Another log of this JVM may know a newer version of the same table (same table id): a state
    // describes the table, not its reader, so go on from there (the commits in between are then
    // not known one by one). A log's first read is its own, from Kernel: a table deleted and
    // created again at the path is never taken for the old one by a new log.
    LogState newest = shared == null ? null : shared.newest();
    boolean jumped =
        newest != null
            && known != null
            && known.exists()
            && newest.exists()
            && newest.version() > known.version()
            && newest.metadata().id().equals(known.metadata().id());
    if (jumped) {
      known = newest;
    }
    if (known == null || known.version() < 0) {
      state = publish(kernel().load());
      return new Advance(state, null);
    }
    List<LogCommit> newer = commitsAfter(known.version());
    if (newer == null) {
      state = publish(kernel().load());
      return new Advance(state, null);
    }
    LogState s = known;
    for (LogCommit c : newer) {
      s = s.next(c);
    }
    state = publish(s);
    return new Advance(s, jumped ? null : newer);
  }

  /** Offers the state to the other logs of this table in this JVM; returns it. */
  private LogState publish(LogState s) {
    if (shared != null && s.exists()) {
      shared.offer(s);
    }
    return s;
  }

  /**
   * The commits after {@code version}, in order; null when they cannot be folded (a gap: the log's
   * cleanup removed some; too many; no log at all).
   */
  private List<LogCommit> commitsAfter(long version) {
    List<FileStatus> files = new ArrayList<>();
    try {
      Iterator<FileStatus> listed = store().listFrom(commitFile(version + 1), conf);
      long expected = version + 1;
      while (listed.hasNext()) {
        FileStatus f = listed.next();
        if (!COMMIT_FILE.matcher(f.getPath().getName()).matches()) {
          continue;
        }
        if (versionOf(f.getPath()) != expected || files.size() >= MAX_COMMITS_FOLDED) {
          return null;
        }
        files.add(f);
        expected++;
      }
    } catch (FileNotFoundException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    List<LogCommit> commits = new ArrayList<>(files.size());
    for (FileStatus f : files) {
      LogCommit c = read(versionOf(f.getPath()), f.getModificationTime());
      if (c == null) {
        return null;
      }
      commits.add(c);
    }
    return commits;
  }

  /** Commits {@code first}..{@code last} (those the log still has). */
  public List<LogCommit> commits(long first, long last) {
    List<LogCommit> out = new ArrayList<>();
    for (long v = Math.max(0, first); v <= last; v++) {
      LogCommit c = read(v, -1);
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  /** Null when the commit file is gone. */
  private LogCommit read(long version, long modificationTime) {
    List<String> lines = new ArrayList<>();
    try (CloseableIterator<String> it = store().read(commitFile(version), conf)) {
      while (it.hasNext()) {
        lines.add(it.next());
      }
    } catch (FileNotFoundException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    return LogCommit.parse(version, modificationTime, lines);
  }

  /** The data files the table holds now, with their stats (null: no table). */
  public LiveFiles liveFiles() {
    return kernel().liveFiles();
  }

  /** Every file the log references now, live or removed but kept for time travel (raw paths). */
  public Set<String> referencedPaths() {
    return kernel().referencedPaths();
  }

  // ---------------------------------------------------------------- committing

  /**
   * Commits what the planner decides, as the next version of the table; each time another writer
   * took that version first, reads the winners and asks the planner again.
   *
   * @throws ConcurrentCommitsException after {@link #MAX_ATTEMPTS} lost versions or {@link
   *     #MAX_COMMIT_MS}
   * @throws UncheckedIOException the write failed in another way: it may have landed (a planner
   *     sees its own commit in the next call's state)
   * @throws UnsupportedTableException the table has a feature this connector does not implement
   */
  public CommitResult commit(CommitPlanner planner) {
    if (shared == null) {
      return commitRacing(planner);
    }
    try {
      if (!shared.awaitTurn(MAX_COMMIT_MS)) {
        throw new ConcurrentCommitsException(
            "Other commits to " + path + " in this JVM held it for " + MAX_COMMIT_MS + " ms", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to commit to " + path, e);
    }
    try {
      return commitRacing(planner);
    } finally {
      shared.endTurn();
    }
  }

  private CommitResult commitRacing(CommitPlanner planner) {
    long started = System.currentTimeMillis();
    Advance current = advance();
    LogState base = current.state();
    List<LogCommit> since = List.of();
    for (int attempt = 1; ; attempt++) {
      CommitPlan plan = planner.plan(base, since);
      if (plan == null) {
        return new CommitResult(-1, attempt, base);
      }
      long version = base.version() + 1;
      List<String> lines = lines(base, plan);
      try {
        if (version == 0) {
          // The first commit creates the log directory, as every Delta writer does.
          logPath.getFileSystem(conf).mkdirs(logPath);
        }
        store().write(commitFile(version), lines.iterator(), false, conf);
      } catch (FileAlreadyExistsException e) {
        if (attempt >= MAX_ATTEMPTS || System.currentTimeMillis() - started > MAX_COMMIT_MS) {
          throw new ConcurrentCommitsException(
              "Other writers took every version this commit to "
                  + path
                  + " tried ("
                  + attempt
                  + " attempts in "
                  + (System.currentTimeMillis() - started)
                  + " ms, the last "
                  + version
                  + ")",
              e);
        }
        backOff(attempt);
        current = advanceBeyond(version - 1, e);
        base = current.state();
        since = current.commits();
        continue;
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Writing version " + version + " of " + path + " failed: " + e.getMessage(), e);
      }
      LogCommit ours = LogCommit.parse(version, System.currentTimeMillis(), lines);
      synchronized (this) {
        if (state != null && state.version() == version - 1) {
          state = publish(state.next(ours));
        }
      }
      return new CommitResult(version, attempt, base);
    }
  }

  /**
   * After the third version in a row lost to other writers (other JVMs: this one's take turns), a
   * random pause of up to 2^attempt ms (at most 100): writers racing in step lose in step; apart,
   * most attempts win.
   */
  private static void backOff(int attempt) {
    if (attempt < 3) {
      return;
    }
    long bound = Math.min(100, 1L << Math.min(attempt, 7));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while committing", e);
    }
  }

  /**
   * The state after a lost version: another writer created it, but with the DynamoDB store its file
   * may not be readable yet (the winner copies it after winning the entry; the listing recovers an
   * entry left incomplete). Looks again briefly before giving up.
   */
  private Advance advanceBeyond(long version, IOException lost) {
    for (int look = 0; ; look++) {
      Advance next = advance();
      if (next.state().version() > version) {
        return next;
      }
      if (look >= 20) {
        throw new ConcurrentCommitsException(
            "Version " + (version + 1) + " of " + path + " is taken but its commit is not readable",
            lost);
      }
      try {
        Thread.sleep(50L * (look + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for a commit of " + path, e);
      }
    }
  }

  private List<String> lines(LogState base, CommitPlan plan) {
    Protocol protocol;
    boolean newProtocol;
    CommitPlan effective = plan;
    if (base.exists()) {
      protocol = base.protocol();
      newProtocol = false;
      if (plan.metadata() != null) {
        effective = withMetadata(plan, NewTables.evolved(plan.metadata()));
      }
    } else {
      if (plan.metadata() == null) {
        throw new IllegalArgumentException("A commit that creates " + path + " needs metadata");
      }
      NewTables.Created created = NewTables.create(plan.metadata());
      protocol = created.protocol();
      newProtocol = true;
      effective = withMetadata(plan, created.metadata());
    }
    Metadata metadata = effective.metadata() != null ? effective.metadata() : base.metadata();
    TableFeatures.checkWritable(path, protocol, metadata);
    return CommitActions.lines(
        base, protocol, newProtocol, effective, engineInfo, System.currentTimeMillis());
  }

  private static CommitPlan withMetadata(CommitPlan plan, Metadata metadata) {
    return new CommitPlan(
        metadata,
        plan.adds(),
        plan.removes(),
        plan.txns(),
        plan.operation(),
        plan.operationParameters(),
        plan.blindAppend(),
        plan.commitInfo());
  }

  // ---------------------------------------------------------------- checkpoints

  /** Whether Delta's rule picks {@code version} for a checkpoint (a multiple of the interval). */
  public boolean checkpointDue(long version, Metadata metadata) {
    return version > 0 && metadata != null && version % KernelLog.checkpointInterval(metadata) == 0;
  }

  /**
   * Writes the checkpoint of {@code version} and then deletes the expired log files.
   *
   * @return false when the checkpoint existed already
   */
  public boolean checkpoint(long version) throws IOException {
    return kernel().checkpoint(version);
  }

  // ---------------------------------------------------------------- helpers

  private Path commitFile(long version) {
    return new Path(logPath, String.format("%020d.json", version));
  }

  private static long versionOf(Path commit) {
    return Long.parseLong(commit.getName().substring(0, 20));
  }

  private synchronized LogStore store() {
    if (store == null) {
      store = LogStores.create(logStoreClass, conf);
    }
    return store;
  }

  private synchronized KernelLog kernel() {
    if (kernel == null) {
      String qualified;
      try {
        qualified = root.getFileSystem(conf).makeQualified(root).toString();
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage(), e);
      }
      kernel = new KernelLog(qualified, conf, LogStores.scheme(root), logStoreClass);
    }
    return kernel;
  }
}
