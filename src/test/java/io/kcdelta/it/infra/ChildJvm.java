package io.kcdelta.it.infra;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM running a main class on this test JVM's classpath, for faults a single JVM cannot
 * show: a process killed with SIGKILL ({@link #kill()}), or a writer in another process. Its output
 * goes to a log file (never inherited: that corrupts the Surefire fork's stdin).
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path logFile;

  private ChildJvm(Process process, Path logFile) {
    this.process = process;
    this.logFile = logFile;
  }

  public static ChildJvm start(String mainClass, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(classpath());
    cmd.add(mainClass);
    cmd.addAll(args);
    try {
      Path log = Files.createTempFile("child-jvm-", ".log");
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      return new ChildJvm(p, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass, e);
    }
  }

  /** Surefire's test classpath when forked with a manifest-only jar, else this JVM's. */
  private static String classpath() {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return String.join(File.pathSeparator, cp.split(File.pathSeparator));
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no finally block, no graceful close of anything in the child. */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("child JVM did not die within 30 s of SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for a normal exit and returns its code. */
  public int await(long timeoutMs) throws InterruptedException {
    if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "child JVM still running after " + timeoutMs + " ms; output:\n" + output());
    }
    return process.exitValue();
  }

  public String output() {
    try {
      return Files.readString(logFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  public Path logFile() {
    return logFile;
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
