package io.kcdelta.sim;

import java.io.IOException;
import java.util.Random;

/**
 * What the simulated storage does at each call: succeed, fail before acting, or act and then fail
 * (the answer lost). Static because Hadoop and Delta Standalone instantiate the file system and log
 * store by class name; the simulation runs one schedule at a time.
 */
final class SimFaults {
  private SimFaults() {
  }

  static volatile Random random = new Random(0);
  /** Creating a data file fails (an upload that cannot start). */
  static volatile double dataFileCreate;
  /** Closing a data file fails (the upload of a finished file fails). */
  static volatile double dataFileClose;
  /** Writing a Delta log version fails before anything is written. */
  static volatile double commitBefore;
  /** A Delta log version is written, then the call fails as if the answer was lost. */
  static volatile double commitAfter;
  static long injected;

  static void reset(Random r) {
    random = r;
    dataFileCreate = 0;
    dataFileClose = 0;
    commitBefore = 0;
    commitAfter = 0;
    injected = 0;
  }

  static void healAll() {
    dataFileCreate = 0;
    dataFileClose = 0;
    commitBefore = 0;
    commitAfter = 0;
  }

  static void maybeFail(double p, String what) throws IOException {
    if (p > 0 && random.nextDouble() < p) {
      injected++;
      throw new IOException("injected: " + what);
    }
  }
}
