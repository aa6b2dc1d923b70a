package io.kcdelta;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.table.ExistingTableCheck;
import io.kcdelta.table.Version;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/** Kafka Connect entry point: validates the config and hands it to every task unchanged. */
public class DeltaSinkConnector extends SinkConnector {
  /** Validation must answer the REST call promptly; the task retries slow storage on its own. */
  private static final Duration EXISTING_TABLE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Task number, added to each task's config: Connect numbers tasks by their index in {@link
   * #taskConfigs}, and the metrics of workers before 4.1 need it as their "task" tag.
   */
  static final String TASK_ID = "kcdelta.task.id";

  private Map<String, String> props;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    new DeltaSinkConfig(props);
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return DeltaSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>(maxTasks);
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> config = new HashMap<>(props);
      config.put(TASK_ID, String.valueOf(i));
      configs.add(config);
    }
    return configs;
  }

  /** The task's number from its config (0 for a config not made by {@link #taskConfigs}). */
  static int taskId(Map<String, String> taskProps) {
    String id = taskProps.get(TASK_ID);
    return id == null ? 0 : Integer.parseInt(id);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return DeltaSinkConfig.CONFIG_DEF;
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    List<ConfigValue> values = new ArrayList<>(super.validate(connectorConfigs).configValues());
    Config config = new Config(values);
    Map<String, ConfigValue> byName = new HashMap<>();
    values.forEach(v -> byName.put(v.name(), v));
    for (DeltaSinkConfig.Problem problem : DeltaSinkConfig.crossFieldProblems(connectorConfigs)) {
      // Prefixed settings (delta.table.properties.*) have no ConfigDef entry: report them as their
      // own values, so the REST answer names the key.
      ConfigValue value =
          byName.computeIfAbsent(
              problem.key(),
              k -> {
                ConfigValue v =
                    new ConfigValue(
                        k, connectorConfigs.get(k), new ArrayList<>(), new ArrayList<>());
                values.add(v);
                return v;
              });
      value.addErrorMessage(problem.message());
    }
    if (config.configValues().stream().allMatch(v -> v.errorMessages().isEmpty())) {
      ConfigValue partitionColumns = byName.get(DeltaSinkConfig.PARTITION_COLUMNS);
      ExistingTableCheck.partitionColumnProblems(
              new DeltaSinkConfig(connectorConfigs), EXISTING_TABLE_TIMEOUT)
          .forEach(partitionColumns::addErrorMessage);
    }
    return config;
  }
}
