package io.kcdelta.it.infra;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A dynalite (DynamoDB API) server in a child node process on 127.0.0.1, for tests.
 *
 * <pre>
 *   try (Dynalite ddb = Dynalite.inMemory()) {            // or Dynalite.onDisk(dir)
 *       URI endpoint = ddb.endpoint();                    // http://127.0.0.1:PORT
 *       ...
 *       ddb.stop(); ddb.start();                          // same port; on disk, same data
 *   }
 * </pre>
 *
 * Needs {@code npm ci} in {@code src/test/node}. The child exits when its stdin closes, so it does
 * not outlive a killed test JVM. Its output goes to a log file (see {@link #logFile()}), never to
 * the JVM's own streams: an inherited stdin corrupts the Surefire fork's command channel.
 */
public final class Dynalite implements AutoCloseable {

  private static final Pattern PORT_LINE = Pattern.compile("DYNALITE_PORT=(\\d+)");
  private static final long START_TIMEOUT_MS = 30_000;

  private final Path dataDir;
  private int port;
  private Process process;
  private Path logFile;

  private Dynalite(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  /** Started, in memory (data is lost on stop), on a free port. */
  public static Dynalite inMemory() {
    return new Dynalite(null, 0).start();
  }

  /**
   * Started, keeping its data in {@code dataDir} (a LevelDB folder) across stop/start, on a free
   * port.
   */
  public static Dynalite onDisk(Path dataDir) {
    return new Dynalite(dataDir, 0).start();
  }

  /** Started, on disk, on the given port (0 = free port). */
  public static Dynalite onDisk(Path dataDir, int port) {
    return new Dynalite(dataDir, port).start();
  }

  /** Starts the server; after a {@link #stop()} it comes back on the same port. */
  public synchronized Dynalite start() {
    if (process != null) {
      throw new IllegalStateException("dynalite is already running on port " + port);
    }
    Path nodeDir = nodeDir();
    Path script = nodeDir.resolve("dynalite-server.js");
    if (!Files.isDirectory(nodeDir.resolve("node_modules").resolve("dynalite"))) {
      throw new IllegalStateException(
          "dynalite is not installed: run `npm ci` in " + nodeDir.toAbsolutePath());
    }
    List<String> cmd =
        new ArrayList<>(List.of(node(), script.toString(), "--port", Integer.toString(port)));
    try {
      if (dataDir != null) {
        Files.createDirectories(dataDir);
        cmd.add("--path");
        cmd.add(dataDir.toAbsolutePath().toString());
      }
      logFile = Files.createTempFile("dynalite-", ".log");
      // Kept while the JVM runs (failure messages quote it), not across runs.
      logFile.toFile().deleteOnExit();
      process =
          new ProcessBuilder(cmd)
              .directory(nodeDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(logFile.toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start dynalite with " + cmd + " (is node installed?)", e);
    }
    port = awaitPort();
    return this;
  }

  private int awaitPort() {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
    while (System.currentTimeMillis() < deadline) {
      String log = log();
      Matcher m = PORT_LINE.matcher(log);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      if (!process.isAlive()) {
        process = null;
        throw new IllegalStateException("dynalite exited at start-up:\n" + log);
      }
      sleep(20);
    }
    stop();
    throw new IllegalStateException(
        "dynalite did not report its port within " + START_TIMEOUT_MS + " ms:\n" + log());
  }

  /** Stops the server (closing its stdin, then killing it if it lingers). Data on disk stays. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    Process p = process;
    process = null;
    try (OutputStream stdin = p.getOutputStream()) {
      // EOF on stdin is the launcher's signal to close LevelDB cleanly and exit.
    } catch (IOException ignored) {
      // already gone
    }
    try {
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  public int port() {
    return port;
  }

  /**
   * Connector settings that make the sink's DynamoDB log store use {@code table} on this server.
   */
  public Map<String, String> connectorConfig(String table) {
    return Map.of("dynamodb.endpoint", endpoint().toString(), "dynamodb.table.name", table);
  }

  /** {@code http://127.0.0.1:PORT} */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The server's output of the current (or last) run, for failure messages. */
  public Path logFile() {
    return logFile;
  }

  private String log() {
    try {
      return logFile == null ? "" : Files.readString(logFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  /** src/test/node, found from the Maven base dir; {@code -Dkcdelta.test.node.dir} overrides it. */
  static Path nodeDir() {
    String override = System.getProperty("kcdelta.test.node.dir");
    if (override != null) {
      return Paths.get(override);
    }
    String base = System.getProperty("basedir", System.getProperty("user.dir"));
    return Paths.get(base, "src", "test", "node");
  }

  private static String node() {
    String node = System.getProperty("kcdelta.node", System.getenv("NODE"));
    return node == null || node.isBlank() ? "node" : node;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting dynalite", e);
    }
  }
}
