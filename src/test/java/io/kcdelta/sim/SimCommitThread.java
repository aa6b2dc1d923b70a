package io.kcdelta.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A simulated worker's commit thread: the commits its groups start wait here until the schedule
 * lets them run, so that the worker's tasks poll and put (and fail, rebalance, stop) between a
 * round's start and its commit, as they do beside the real thread.
 */
final class SimCommitThread implements Executor {
  private final List<Runnable> queued = new ArrayList<>();

  @Override
  public void execute(Runnable commit) {
    queued.add(commit);
  }

  int pending() {
    return queued.size();
  }

  /** Runs the commits started so far, in order (those they start wait for the next call). */
  void runPending() {
    List<Runnable> jobs = new ArrayList<>(queued);
    queued.clear();
    jobs.forEach(Runnable::run);
  }

  /** The worker's process is gone: its commits never run. */
  void crash() {
    queued.clear();
  }
}
