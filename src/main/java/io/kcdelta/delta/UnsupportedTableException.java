package io.kcdelta.delta;

/**
 * The table uses something this connector cannot write correctly (an unknown table feature, a
 * constraint or generated column it cannot compute): writing would break the table's rules for
 * every reader, so the task fails with this message, which says what to change.
 */
public final class UnsupportedTableException extends RuntimeException {
  public UnsupportedTableException(String message) {
    super(message);
  }
}
