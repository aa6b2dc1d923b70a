package io.kcdelta.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.Test;

/**
 * S3 or DynamoDB goes away while the connector runs. Within the retry budget the tasks ride it out
 * on their own; beyond it they fail with a message naming the service, and resume correctly on
 * restart.
 */
class S3DynamoDbOutageIT extends AbstractFaultIT {
  private static final long OUTAGE_MS = 20_000;

  @Test
  void dynamoDbDownFor20Seconds() throws Exception {
    outage("ddb-outage", "DynamoDB", () -> dynamo.stop(), () -> dynamo.start());
  }

  @Test
  void s3DownFor20Seconds() throws Exception {
    outage("s3-outage", "S3", () -> s3.stop(), () -> s3.start());
  }

  private void outage(String name, String service, Runnable stop, Runnable start) throws Exception {
    long t0 = System.nanoTime();
    try (Pipeline p = new Pipeline(name);
        FailureWatch watch = new FailureWatch(p)) {
      p.configure(Map.of(), TASKS);
      long versionAtStop;
      try (Pipeline.Background bg = p.produceInBackground(50, 100)) {
        awaitVersion(p, 3);
        versionAtStop = tableVersion(p);
        stop.run();
        int producedAtStop = p.records.partitionOfId.size();
        Thread.sleep(OUTAGE_MS); // the outage itself, not an assertion
        start.run();
        log(
            "%s was down for %d ms (from table version %d, %d records produced; %d during the outage)",
            service,
            OUTAGE_MS,
            versionAtStop,
            producedAtStop,
            p.records.partitionOfId.size() - producedAtStop);
        awaitVersion(p, tableVersion(p) + 3);
      }
      p.awaitDurable(180_000);
      Verified verified = p.verify(Set.of());
      assertEquals(List.of(), watch.failures, "no task may fail within the retry budget");
      assertTrue(
          p.status().tasks().stream().allMatch(t -> t.state().equals("RUNNING")),
          p.describeTasks());
      log(
          "scenario %s down %d s: no task failed or was restarted; %s; %.1f s",
          service, OUTAGE_MS / 1000, verified, (System.nanoTime() - t0) / 1e9);
    }
  }

  /**
   * Beyond {@code delta.commit.retry.timeout.ms} the tasks fail, saying which service to check;
   * after the service is back, restarting the failed tasks resumes exactly once. DynamoDB first,
   * then S3.
   */
  @Test
  void servicesDownBeyondTheRetryBudgetFailTheTasksWithAHintAndResumeOnRestart() throws Exception {
    long t0 = System.nanoTime();
    try (Pipeline p = new Pipeline("down-long")) {
      p.configure(Map.of("delta.commit.retry.timeout.ms", "10000"), TASKS);
      try (Pipeline.Background bg = p.produceInBackground(50, 100)) {
        awaitVersion(p, 3);
        failAndResume(
            p, "DynamoDB", "Check that DynamoDB", () -> dynamo.stop(), () -> dynamo.start());
        failAndResume(p, "S3", "Check that S3", () -> s3.stop(), () -> s3.start());
      }
      p.awaitDurable(180_000);
      Verified verified = p.verify(Set.of());
      log(
          "scenario services down beyond the budget (DynamoDB, then S3): %s; %.1f s",
          verified, (System.nanoTime() - t0) / 1e9);
    }
  }

  private void failAndResume(Pipeline p, String service, String hint, Runnable stop, Runnable start)
      throws Exception {
    long stoppedAt = System.nanoTime();
    stop.run();
    try {
      // The survivors' reads at the rebalance (open, then the late open in put()) each take the S3
      // client's whole retry time (~18 s here) while S3 is down. The tasks of a commit group share
      // one Delta log, which Delta Standalone reads under one lock; before their reads were
      // combined (CombinedReads) they queued, and a CI run saw the last of 8 tasks still waiting
      // its turn after 180 s. Now a task waits for at most two reads.
      await(
          "every task to fail while " + service + " is down",
          180_000,
          () -> p.status().tasks().stream().allMatch(t -> t.state().equals("FAILED")),
          p::describeTasks);
    } finally {
      start.run();
    }
    double failedAfter = (System.nanoTime() - stoppedAt) / 1e9;
    List<String> traces = traces(p.status());
    assertEquals(TASKS, traces.size(), p.describeTasks());
    for (String trace : traces) {
      assertTrue(
          trace.contains(hint), "the failure must say what to check (" + hint + "):\n" + trace);
    }
    String line = traces.get(0).lines().filter(l -> l.contains(hint)).findFirst().orElseThrow();
    log(
        "%s down: all %d tasks failed within %.1f s with: %s",
        service, TASKS, failedAfter, line.trim());
    connect.restartConnectorAndTasks(p.connector, true, true, false);
    p.awaitTasksRunning(TASKS);
    awaitVersion(p, tableVersion(p) + 3);
  }

  private void awaitVersion(Pipeline p, long version) throws InterruptedException {
    await("table version " + version, 180_000, () -> tableVersion(p) >= version, p::describeTasks);
  }

  /** Records every task state FAILED seen while it runs. */
  private static final class FailureWatch implements AutoCloseable {
    final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    FailureWatch(Pipeline p) {
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  try {
                    ConnectorStateInfo s = p.status();
                    s.tasks().stream()
                        .filter(t -> t.state().equals("FAILED"))
                        .forEach(t -> failures.add("task " + t.id() + ": " + t.trace()));
                  } catch (RuntimeException e) {
                    // not created yet, or the REST call timed out: look again
                  }
                  try {
                    Thread.sleep(500);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "failure-watch");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join(5_000);
    }
  }
}
