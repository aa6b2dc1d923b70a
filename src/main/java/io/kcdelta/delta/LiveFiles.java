package io.kcdelta.delta;

import java.util.List;

/** The data files a table holds at {@code version}, with their stats. */
public record LiveFiles(long version, List<AddFile> files) {}
