package io.kcdelta.table;

import io.kcdelta.parquet.DataFile;
import java.util.Map;

/** A finished data file with the Delta partition values of its rows, waiting for a commit. */
record PendingFile(DataFile file, Map<String, String> partitionValues) {}
