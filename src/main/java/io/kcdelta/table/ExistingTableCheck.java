package io.kcdelta.table;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.delta.LogState;
import io.kcdelta.delta.Metadata;
import io.kcdelta.delta.TableLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Checks the connector's table settings against a table that already exists, so that a config which
 * cannot work is rejected when it is posted rather than when the first record arrives.
 */
public final class ExistingTableCheck {
  private ExistingTableCheck() {}

  /**
   * Problems with {@code delta.table.partition.columns} for the existing table; none when the table
   * does not exist, the path holds {@code ${topic}} or {@code ${field:...}}, or the table cannot be
   * read within {@code timeout} (the task reports those itself, with retries).
   */
  public static List<String> partitionColumnProblems(DeltaSinkConfig config, Duration timeout) {
    if (config.tablePathTemplate().contains(DeltaSinkConfig.TOPIC_PLACEHOLDER)
        || config.routesByField()
        || config.partitionColumns().isEmpty()) {
      return List.of();
    }
    CompletableFuture<Metadata> read =
        CompletableFuture.supplyAsync(
            () -> {
              LogState state =
                  new TableLog(
                          config.tablePathTemplate(),
                          HadoopConfigurationFactory.create(config),
                          DeltaCommitter.ENGINE_INFO)
                      .update();
              return state.exists() ? state.metadata() : null;
            });
    Metadata metadata;
    try {
      metadata = read.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      read.cancel(true);
      return List.of();
    }
    if (metadata == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    Set<String> columns = Set.copyOf(metadata.schema().fieldNames());
    for (String column : config.partitionColumns()) {
      if (!columns.contains(column)) {
        problems.add(
            "'"
                + column
                + "' is not a column of the existing table "
                + config.tablePathTemplate()
                + " (columns: "
                + String.join(", ", metadata.schema().fieldNames())
                + ").");
      }
    }
    if (problems.isEmpty() && !metadata.partitionColumns().equals(config.partitionColumns())) {
      problems.add(
          "The existing table "
              + config.tablePathTemplate()
              + " is partitioned by "
              + metadata.partitionColumns()
              + ", not "
              + config.partitionColumns()
              + ". This setting only "
              + "shapes tables the connector creates: set it to "
              + String.join(",", metadata.partitionColumns())
              + " or leave it empty.");
    }
    return problems;
  }
}
