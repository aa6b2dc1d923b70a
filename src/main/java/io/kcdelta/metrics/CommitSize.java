package io.kcdelta.metrics;

/** What one committed batch held, for the metrics. */
public record CommitSize(int files, long rows, long bytes, long newestTimestampMs) {}
