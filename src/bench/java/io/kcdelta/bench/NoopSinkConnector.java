package io.kcdelta.bench;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A sink that discards every record: the rate of the worker, consumer and converter alone (the
 * ceiling).
 */
public class NoopSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return Noop.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return Collections.nCopies(maxTasks, props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "bench";
  }

  /** Discards records; offsets are committed by the worker as they are consumed. */
  public static class Noop extends SinkTask {
    private long sink;

    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {
      for (SinkRecord r : records) {
        // Touch the converted value so nothing is optimized away.
        sink += r.value() == null ? 0 : 1;
      }
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "bench";
    }
  }
}
