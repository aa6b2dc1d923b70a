package io.kcdelta.logstore;

/**
 * Thrown by a test {@link CommitHook} to stop a write between two steps, as a dying process would.
 */
final class SimulatedCrash extends RuntimeException {
  SimulatedCrash(CommitHook.Step step) {
    super("simulated crash after " + step);
  }
}
