package io.kcdelta;

import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.table.DeltaSinkWriter;
import io.kcdelta.table.SinkMetrics;
import io.kcdelta.table.Version;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** Kafka Connect entry point of a task; the exactly-once work is {@link DeltaSinkWriter}'s. */
public class DeltaSinkTask extends SinkTask {
  private DeltaSinkWriter writer;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    DeltaSinkConfig config = new DeltaSinkConfig(props);
    ErrantRecordReporter reporter = errantRecordReporter();
    writer = new DeltaSinkWriter(config, context, HadoopConfigurationFactory.create(config), reporter,
        SinkMetrics.of(context.pluginMetrics()), System::currentTimeMillis);
  }

  private ErrantRecordReporter errantRecordReporter() {
    try {
      return context.errantRecordReporter();
    } catch (NoSuchMethodError | NoClassDefFoundError e) {
      return null;
    }
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    writer.open(partitions);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    writer.put(records);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    return writer.preCommit(currentOffsets);
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    writer.close(partitions);
  }

  @Override
  public void stop() {
    if (writer != null) {
      writer.stop();
    }
  }
}
