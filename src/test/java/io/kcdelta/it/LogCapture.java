package io.kcdelta.it;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

/** The connector's log lines (io.kcdelta, INFO and up) while it is open, for assertions. */
final class LogCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();

  private LogCapture() {
    super("kcdelta-capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
  }

  static LogCapture begin() {
    LogCapture capture = new LogCapture();
    capture.start();
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    cfg.addAppender(capture);
    cfg.getLoggerConfig("io.kcdelta").addAppender(capture, Level.INFO, null);
    ctx.updateLoggers();
    return capture;
  }

  @Override
  public synchronized void append(LogEvent event) {
    lines.add(event.getMessage().getFormattedMessage());
  }

  synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getLoggerConfig("io.kcdelta").removeAppender(getName());
    ctx.updateLoggers();
    stop();
  }
}
