package io.kcdelta.it.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Spark 4 with Delta Lake in a JVM of its own (interop/: Spark is no dependency of the connector or
 * of this test JVM), driven by SQL: one statement per call, the result as JSON rows. Its log store
 * for file:// tables is the connector's hard-link store, so Spark's commits and the connector's
 * exclude each other on one table, as writers on one table must.
 */
public final class SparkSql implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] OPENS = {
    "java.base/java.lang",
    "java.base/java.lang.invoke",
    "java.base/java.lang.reflect",
    "java.base/java.io",
    "java.base/java.net",
    "java.base/java.nio",
    "java.base/java.util",
    "java.base/java.util.concurrent",
    "java.base/java.util.concurrent.atomic",
    "java.base/sun.nio.ch",
    "java.base/sun.nio.cs",
    "java.base/sun.security.action",
    "java.base/sun.util.calendar"
  };

  private final Process process;
  private final PrintWriter in;
  private final BufferedReader out;
  private final Path log;

  private SparkSql(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Builds the interop runtime (Maven, incremental) and starts a session. */
  public static SparkSql start() throws IOException, InterruptedException {
    Path root = Paths.get("").toAbsolutePath();
    Path classpathFile = root.resolve("interop/target/spark.classpath");
    Path pom = root.resolve("interop/pom.xml");
    {
      // Every time: Maven compiles nothing when the server is up to date, and resolves Spark
      // (hundreds of MB) from the local repository after the first run.
      Path buildLog = Files.createTempFile("interop-build-", ".log");
      Process build =
          new ProcessBuilder(
                  root.resolve("mvnw").toString(), "-q", "-B", "-f", pom.toString(), "package")
              .redirectErrorStream(true)
              .redirectOutput(buildLog.toFile())
              .start();
      if (!build.waitFor(20, TimeUnit.MINUTES) || build.exitValue() != 0) {
        throw new IllegalStateException(
            "building interop/ failed:\n" + Files.readString(buildLog, StandardCharsets.UTF_8));
      }
    }
    String classpath =
        String.join(
            File.pathSeparator,
            Files.readString(classpathFile, StandardCharsets.UTF_8).trim(),
            root.resolve("interop/target/classes").toString(),
            // The connector's log stores (io.kcdelta.logstore), for spark.delta.logStore.file.impl.
            root.resolve("target/classes").toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:ReservedCodeCacheSize=256m");
    for (String open : OPENS) {
      cmd.add("--add-opens=" + open + "=ALL-UNNAMED");
    }
    cmd.add("-Djdk.reflect.useDirectMethodHandle=false");
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add("io.kcdelta.interop.SparkSqlServer");
    cmd.add("io.kcdelta.logstore.LocalFileLogStore");
    Path log = Files.createTempFile("spark-", ".log");
    // Spark's own output goes to a file (never inherited: that corrupts the Surefire fork's stdin).
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    SparkSql spark = new SparkSql(p, log);
    String ready = spark.answer();
    if (!"READY".equals(ready)) {
      throw new IllegalStateException("Spark did not start (" + ready + "):\n" + spark.log());
    }
    return spark;
  }

  /**
   * Creates a table with generated columns through Delta's table builder: {@code {"path",
   * "columns": [{"name", "type", "generatedAlwaysAs"?}], "partitionedBy": [...]}}.
   */
  public void createGenerated(String json) {
    sql("CREATE-GENERATED " + json);
  }

  /** Runs one statement; its result rows as JSON objects. */
  public synchronized List<JsonNode> sql(String statement) {
    in.println(statement.replace('\n', ' '));
    try {
      String status = answer();
      if (status == null) {
        throw new IllegalStateException("Spark exited:\n" + log());
      }
      if (status.startsWith("ERROR")) {
        throw new IllegalStateException("Spark refused: " + statement + "\n  " + status);
      }
      int n = Integer.parseInt(status.substring("OK ".length()));
      List<JsonNode> rows = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        rows.add(JSON.readTree(answer()));
      }
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The next line of the server's answers, which it marks: the JVM itself may print warnings to
   * stdout (a full code cache, say) between them.
   */
  private String answer() throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(MARK)) {
        return line.substring(MARK.length());
      }
    }
    return null;
  }

  private static final String MARK = "@@ ";

  /**
   * Runs a statement that writes to a table the connector commits to at the same time, again when
   * Spark's conflict check refuses to rebase over one of the connector's commits ("Concurrent..."),
   * at most {@code attempts} times in all.
   */
  public void sqlRetryingConflicts(String statement, int attempts) {
    for (int attempt = 1; ; attempt++) {
      try {
        sql(statement);
        return;
      } catch (IllegalStateException e) {
        if (attempt >= attempts || !e.getMessage().contains("Concurrent")) {
          throw e;
        }
      }
    }
  }

  /** The one value of a statement that answers one row of one column. */
  public JsonNode value(String statement) {
    List<JsonNode> rows = sql(statement);
    if (rows.size() != 1 || rows.get(0).size() != 1) {
      throw new IllegalStateException(statement + " answered " + rows);
    }
    return rows.get(0).elements().next();
  }

  public String log() {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.length() > 20_000 ? text.substring(text.length() - 20_000) : text;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    in.close();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
