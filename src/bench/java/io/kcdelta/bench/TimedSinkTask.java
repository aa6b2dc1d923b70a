package io.kcdelta.bench;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Delegates every call to the wrapped task and reports the records it was handed to {@link Probe}.
 */
public class TimedSinkTask extends SinkTask {
  private SinkTask delegate;
  private Probe probe;

  @Override
  public void start(Map<String, String> props) {
    try {
      delegate =
          (SinkTask)
              Class.forName(props.get(TimedSinkConnector.DELEGATE_TASK))
                  .getDeclaredConstructor()
                  .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(e);
    }
    probe = Probe.of(props.get(TimedSinkConnector.RUN));
    delegate.initialize(context);
    delegate.start(props);
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    delegate.open(partitions);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    long t = System.nanoTime();
    delegate.put(records);
    probe.seen(records.size(), t);
  }

  @Override
  public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    delegate.flush(currentOffsets);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    return delegate.preCommit(currentOffsets);
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    delegate.close(partitions);
  }

  @Override
  public void stop() {
    if (delegate != null) {
      delegate.stop();
    }
  }

  @Override
  public String version() {
    return "bench";
  }
}
