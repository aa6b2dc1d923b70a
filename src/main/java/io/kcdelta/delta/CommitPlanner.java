package io.kcdelta.delta;

import java.util.List;

/**
 * Decides a commit against the table as it is: called with the latest state before the first
 * attempt, and again each time another writer took the version first, with the commits made since
 * the previous call. That is the whole conflict check: a planner sees every winning commit, and a
 * plan built on the newest state is valid there (fencing by txn versions, metadata merged anew).
 */
@FunctionalInterface
public interface CommitPlanner {
  /**
   * @param base the table as of the version the commit would follow
   * @param since the commits after the previous call's base (empty on the first call)
   * @return what to commit as version {@code base.version() + 1}, or null to commit nothing
   */
  CommitPlan plan(LogState base, List<LogCommit> since);
}
