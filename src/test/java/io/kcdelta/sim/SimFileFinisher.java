package io.kcdelta.sim;

import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.ParquetFileWriter;
import io.kcdelta.table.FileFinisher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A simulated worker's file finisher: a file handed to it is finished when the schedule says so
 * ({@link #finishOne}), or at the latest when its task waits for it; a crashed worker's files are
 * never finished. So the schedules reach rewinds, stops and crashes while files are being finished,
 * single-threaded and replayable.
 */
final class SimFileFinisher implements FileFinisher {
  private final List<Job> pending = new ArrayList<>();
  private boolean crashed;

  @Override
  public Finishing start(ParquetFileWriter writer) {
    Job job = new Job(writer);
    pending.add(job);
    return job;
  }

  /** Finishes one of the files being finished, picked at random; false when there is none. */
  boolean finishOne(Random random) {
    if (pending.isEmpty() || crashed) {
      return false;
    }
    pending.get(random.nextInt(pending.size())).run();
    return true;
  }

  int pending() {
    return pending.size();
  }

  /** The worker is gone: what it was finishing stays as it is. */
  void crash() {
    crashed = true;
    pending.clear();
  }

  private final class Job implements Finishing {
    private final ParquetFileWriter writer;
    private boolean done;
    private DataFile result;
    private Exception failure;

    Job(ParquetFileWriter writer) {
      this.writer = writer;
    }

    void run() {
      if (done) {
        return;
      }
      done = true;
      pending.remove(this);
      try {
        result = writer.finish();
      } catch (IOException | RuntimeException e) {
        writer.abort();
        failure = e;
      }
    }

    @Override
    public DataFile await() throws IOException {
      if (crashed) {
        throw new IllegalStateException("a crashed worker's task went on");
      }
      run();
      if (failure instanceof IOException io) {
        throw io;
      } else if (failure != null) {
        throw (RuntimeException) failure;
      }
      return result;
    }
  }
}
