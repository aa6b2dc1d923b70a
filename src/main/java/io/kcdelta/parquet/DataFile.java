package io.kcdelta.parquet;

import org.apache.hadoop.fs.Path;

/**
 * A finished, fully uploaded Parquet data file, ready to be referenced by a Delta AddFile.
 *
 * @param path absolute path of the file
 * @param sizeBytes file length in bytes
 * @param numRecords rows in the file
 * @param statsJson Delta per-file statistics as a JSON object text
 *     ({"numRecords":..,"minValues":{..},"maxValues":{..},"nullCount":{..}})
 */
public record DataFile(Path path, long sizeBytes, long numRecords, String statsJson) {}
