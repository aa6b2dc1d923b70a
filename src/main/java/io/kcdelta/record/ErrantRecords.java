package io.kcdelta.record;

import io.kcdelta.metrics.SinkMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Sends records that cannot be rows to Connect's errant record reporter (the dead letter queue
 * under {@code errors.tolerance=all}); without one, the first such record fails the task. A commit
 * first waits for the reports of the records it covers, so no offset becomes durable before its
 * report.
 */
public final class ErrantRecords {
  private final ErrantRecordReporter reporter;
  private final SinkMetrics metrics;
  private final List<Future<Void>> pending = new ArrayList<>();

  public ErrantRecords(ErrantRecordReporter reporter, SinkMetrics metrics) {
    this.reporter = reporter;
    this.metrics = metrics;
  }

  public void report(SinkRecord record, RecordCheck.Errant errant) {
    metrics.recordErrant(errant.cause());
    if (reporter == null) {
      throw errant.problem();
    }
    pending.add(reporter.report(record, errant.problem()));
  }

  public void awaitReports() {
    for (Future<Void> f : pending) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RetriableException("Interrupted while waiting for the dead letter queue", e);
      } catch (ExecutionException e) {
        throw new ConnectException(
            "Could not write an errant record to the dead letter queue", e.getCause());
      }
    }
    pending.clear();
  }
}
