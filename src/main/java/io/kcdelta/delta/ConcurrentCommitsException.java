package io.kcdelta.delta;

/**
 * Other writers kept taking the version a commit tried, longer than one commit may take. Passing
 * (the retry policy treats it so): the next attempt starts from the newer table.
 */
public final class ConcurrentCommitsException extends RuntimeException {
  public ConcurrentCommitsException(String message, Throwable cause) {
    super(message, cause);
  }
}
