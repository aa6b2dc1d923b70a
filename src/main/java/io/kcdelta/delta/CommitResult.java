package io.kcdelta.delta;

/**
 * What {@link TableLog#commit} did.
 *
 * @param version the version created, or -1 when the planner chose to commit nothing
 * @param attempts versions tried: more than one means other writers took the first ones
 * @param base the table as the last plan saw it
 */
public record CommitResult(long version, int attempts, LogState base) {
  public boolean committed() {
    return version >= 0;
  }
}
