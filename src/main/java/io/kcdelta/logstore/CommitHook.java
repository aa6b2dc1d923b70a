package io.kcdelta.logstore;

import org.apache.hadoop.fs.Path;

/**
 * Test seam: called by {@link DynamoDbLogStore} after each step of a write, so tests can simulate a
 * crash between two steps by throwing. Production code uses {@link #NONE}.
 */
interface CommitHook {

  enum Step {
    /**
     * The actions are in {@code _delta_log/.tmp/…}; no DynamoDB item yet (the commit is not won).
     */
    TEMP_WRITTEN,
    /** The incomplete item is in DynamoDB: the version is won, {@code N.json} not yet written. */
    ENTRY_PUT,
    /** {@code N.json} exists; the item is not yet marked complete. */
    COPIED
  }

  CommitHook NONE = (step, file) -> {};

  void after(Step step, Path deltaFile);
}
