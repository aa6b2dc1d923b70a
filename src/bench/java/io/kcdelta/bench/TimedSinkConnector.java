package io.kcdelta.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectorContext;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Runs any sink connector ({@code bench.delegate}) with its tasks wrapped in {@link TimedSinkTask},
 * which notes when the first record reached put() and how many did, under the run name {@code
 * bench.run}.
 */
public class TimedSinkConnector extends SinkConnector {
  static final String DELEGATE = "bench.delegate";
  static final String DELEGATE_TASK = "bench.delegate.task";
  static final String RUN = "bench.run";

  private SinkConnector delegate;
  private ConnectorContext ctx;
  private Map<String, String> props;

  @Override
  public void initialize(ConnectorContext ctx) {
    super.initialize(ctx);
    this.ctx = ctx;
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
    try {
      delegate =
          (SinkConnector) Class.forName(props.get(DELEGATE)).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(e);
    }
    delegate.initialize(ctx);
    delegate.start(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return TimedSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> out = new ArrayList<>();
    for (Map<String, String> c : delegate.taskConfigs(maxTasks)) {
      Map<String, String> m = new HashMap<>(c);
      m.put(DELEGATE_TASK, delegate.taskClass().getName());
      m.put(RUN, props.get(RUN));
      out.add(m);
    }
    return out;
  }

  @Override
  public void stop() {
    if (delegate != null) {
      delegate.stop();
    }
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "bench";
  }
}
