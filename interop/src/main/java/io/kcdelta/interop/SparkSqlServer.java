package io.kcdelta.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaColumnBuilder;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark session with Delta Lake that runs the SQL statements it reads, one per line on stdin, and
 * answers each with one line on stdout: {@code @@ OK <n>} and then n lines of the result as JSON
 * rows (each after {@code @@ }), or {@code @@ ERROR <message>}. One JVM serves a whole test: a
 * Spark session takes tens of seconds to start. It exits when stdin closes, so it dies with the
 * test JVM.
 *
 * <p>Argument: the log store class for file:// tables ({@code spark.delta.logStore.file.impl}): the
 * connector's hard-link store, so that Spark and the connector exclude each other on one table.
 */
public final class SparkSqlServer {
  /** Marks the answers: the JVM may print its own warnings to stdout. */
  private static final String MARK = "@@ ";

  /**
   * {@code CREATE-GENERATED {"path": ..., "columns": [{"name", "type", "generatedAlwaysAs"?}],
   * "partitionedBy": [...]}}: a table with generated columns, through Delta's table builder (Delta
   * 4.0's SQL cannot declare them: Spark 4.0 refuses GENERATED ALWAYS AS for its catalog).
   */
  private static final String CREATE_GENERATED = "CREATE-GENERATED ";

  private SparkSqlServer() {}

  private static void createGenerated(SparkSession spark, String json) throws Exception {
    JsonNode spec = new ObjectMapper().readTree(json);
    DeltaTableBuilder table = DeltaTable.create(spark).location(spec.get("path").asText());
    for (JsonNode c : spec.get("columns")) {
      DeltaColumnBuilder column =
          DeltaTable.columnBuilder(spark, c.get("name").asText()).dataType(c.get("type").asText());
      if (c.has("generatedAlwaysAs")) {
        column = column.generatedAlwaysAs(c.get("generatedAlwaysAs").asText());
      }
      table = table.addColumn(column.build());
    }
    List<String> partitions = new ArrayList<>();
    spec.get("partitionedBy").forEach(p -> partitions.add(p.asText()));
    table.partitionedBy(partitions.toArray(new String[0])).execute();
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // Spark's own output must not mix with the answers.
    System.setOut(System.err);
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("kcdelta-interop")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.databricks.delta.snapshotPartitions", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    if (args.length > 0) {
      builder.config("spark.delta.logStore.file.impl", args[0]);
    }
    SparkSession spark = builder.getOrCreate();
    out.println(MARK + "READY");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.isBlank()) {
        continue;
      }
      try {
        if (line.startsWith(CREATE_GENERATED)) {
          createGenerated(spark, line.substring(CREATE_GENERATED.length()));
          out.println(MARK + "OK 0");
          continue;
        }
        Dataset<Row> result = spark.sql(line);
        List<String> rows = result.toJSON().collectAsList();
        out.println(MARK + "OK " + rows.size());
        rows.forEach(r -> out.println(MARK + r));
      } catch (Exception e) {
        String message = String.valueOf(e.getMessage()).replace('\n', ' ');
        out.println(MARK + "ERROR " + e.getClass().getSimpleName() + ": " + message);
      }
    }
    spark.stop();
  }
}
