package io.kcdelta.table;

import io.delta.standalone.exceptions.DeltaStandaloneException;

/** Tells failures worth retrying (I/O, throttling, timeouts) from ones a retry cannot fix. */
final class Transience {
  private Transience() {
  }

  static boolean isTransient(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException || t instanceof DeltaStandaloneException
          || t instanceof org.apache.kafka.connect.errors.DataException
          || t instanceof java.nio.file.AccessDeniedException
          || t.getClass().getName().endsWith("InvalidProtocolVersionException")) {
        return false;
      }
    }
    return true;
  }
}
