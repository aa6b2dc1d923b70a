package io.kcdelta.logstore;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Thrown by a test {@link CommitHook} to stop a write between two steps, as a dying process would.
 * To the task that survives it (the fault ITs keep it running, to be the next writer) it is a
 * commit whose answer was lost on the way: an I/O failure, retried like one.
 */
final class SimulatedCrash extends UncheckedIOException {
  SimulatedCrash(CommitHook.Step step) {
    super("simulated crash after " + step, new IOException("the writer died after " + step));
  }
}
