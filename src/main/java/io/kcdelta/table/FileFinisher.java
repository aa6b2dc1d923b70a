package io.kcdelta.table;

import io.kcdelta.parquet.DataFile;
import io.kcdelta.parquet.ParquetFileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * Where data files are finished: their last pages and footer written, and on S3 their upload
 * completed. On a worker that is a small pool of its own, so that a task's files of many partition
 * values upload side by side rather than one after the other, and a file rolled at {@code
 * file.max.bytes} uploads while the task writes on. Whoever needs a file's description waits for it
 * ({@link Finishing#await}); exactly-once is unchanged, as a batch is committed only with all its
 * files finished.
 */
public interface FileFinisher {

  /** A file being finished; the writer belongs to the finisher until {@link #await} returns. */
  interface Finishing {
    /**
     * The finished file.
     *
     * @throws IOException finishing failed; the writer has been aborted (its file deleted)
     */
    DataFile await() throws IOException;
  }

  /** Starts finishing the file. */
  Finishing start(ParquetFileWriter writer);

  /** Finishes each file on the caller's thread, at once. */
  static FileFinisher inline() {
    return writer -> {
      try {
        DataFile done = finish(writer);
        return () -> done;
      } catch (IOException e) {
        return () -> {
          throw e;
        };
      } catch (RuntimeException e) {
        return () -> {
          throw e;
        };
      }
    };
  }

  /** Finishes files on the executor. */
  static FileFinisher on(Executor executor) {
    return writer -> {
      CompletableFuture<DataFile> future =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return finish(writer);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              executor);
      return () -> {
        boolean interrupted = false;
        try {
          while (true) {
            try {
              return future.get();
            } catch (InterruptedException e) {
              // The file is half uploaded by another thread: the caller must not go on without
              // knowing its fate (it deletes it or commits it).
              interrupted = true;
            }
          }
        } catch (ExecutionException e) {
          Throwable cause =
              e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
          if (cause instanceof UncheckedIOException u) {
            throw u.getCause();
          }
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IOException("Finishing a data file failed", cause);
        } finally {
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
        }
      };
    };
  }

  /**
   * The worker's pool: as many threads as cores, at least 2 and at most 8 (finishing is mostly
   * compression and waiting for S3); idle threads end.
   */
  static FileFinisher workerPool() {
    int threads = Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors()));
    return on(WorkerThreads.pool("kcdelta-file-finisher", threads));
  }

  /** Finishes the file; on failure aborts it (deletes what was written) and rethrows. */
  private static DataFile finish(ParquetFileWriter writer) throws IOException {
    try {
      return writer.finish();
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
  }
}
