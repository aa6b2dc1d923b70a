package io.kcdelta.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;

/**
 * Calls into Delta Standalone. It is Scala code: the checked {@link IOException}s of the LogStore
 * and of Hadoop (S3 or DynamoDB unreachable) escape its methods although Java signatures do not
 * declare them. Every caller here handles failures as {@link RuntimeException}s (retry, rewind,
 * fail with a hint); an undeclared checked exception would slip past all of that and kill the task.
 */
final class Unchecked {
  private Unchecked() {}

  static <T> T call(Supplier<T> standaloneCall) {
    try {
      return standaloneCall.get();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      // Only reachable through an undeclared (sneaky) throw.
      if (e instanceof IOException io) {
        throw new UncheckedIOException(io.getMessage(), io);
      }
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
