package io.kcdelta;

import io.kcdelta.compat.ConnectApi;
import io.kcdelta.compat.TaskMetricRegistry;
import io.kcdelta.config.DeltaSinkConfig;
import io.kcdelta.config.HadoopConfigurationFactory;
import io.kcdelta.metrics.SinkMetrics;
import io.kcdelta.table.CommitGroups;
import io.kcdelta.table.DeltaSinkWriter;
import io.kcdelta.table.Version;
import java.util.Collection;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kafka Connect entry point of a task; the exactly-once work is {@link DeltaSinkWriter}'s. */
public class DeltaSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkTask.class);

  private DeltaSinkWriter writer;
  private TaskMetricRegistry metrics;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    DeltaSinkConfig config = new DeltaSinkConfig(props);
    ConnectApi api = ConnectApi.ofWorker();
    int taskId = DeltaSinkConnector.taskId(props);
    LOG.info(
        "Task {} of connector {} starting, version {}; Connect API: {}",
        taskId,
        config.connectorName(),
        Version.get(),
        api);
    metrics = api.metrics(context, config.connectorName(), taskId);
    Configuration conf = HadoopConfigurationFactory.create(config);
    String identity = HadoopConfigurationFactory.awsIdentity(config, conf);
    if (identity != null) {
      LOG.info("Task {} of connector {}: {}", taskId, config.connectorName(), identity);
    }
    writer =
        new DeltaSinkWriter(
            config,
            context,
            conf,
            context.errantRecordReporter(),
            SinkMetrics.of(metrics),
            api.recordOrigin(),
            System::currentTimeMillis,
            CommitGroups.jvm());
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
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
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
    if (metrics != null) {
      metrics.close();
    }
  }
}
