package io.kcdelta.bench;

import io.kcdelta.parquet.ParquetFileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.avro.generic.GenericData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Struct;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Encode path: {@code rows} Connect Structs (converted once from the benchmark's JSON records) into
 * one snappy Parquet file on the local disk, per operation batch. {@code ours}: our WriteSupport
 * walking the Structs (stats included). {@code parquetAvro}: Struct → GenericRecord (as the
 * Confluent S3 sink does) then AvroParquetWriter. {@code parquetAvroPreconverted}:
 * AvroParquetWriter alone, GenericRecords made in advance (how much of parquet-avro's cost is the
 * conversion). Scores are records/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EncodeBench {
  @Param("20000")
  public int rows;

  private List<Struct> structs;
  private List<GenericData.Record> records;
  private StructToAvro avro;
  private Configuration conf;
  private java.nio.file.Path dir;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    structs = BenchRecords.structs(0, rows);
    avro = new StructToAvro();
    records = new ArrayList<>(rows);
    for (Struct s : structs) {
      records.add(avro.toRecord(s));
    }
    conf = new Configuration();
    dir = Files.createTempDirectory("kcdelta-encode-");
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try (var files = Files.list(dir)) {
      for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) files::iterator) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir);
  }

  private Path file() {
    return new Path(dir.resolve(UUID.randomUUID() + ".parquet").toUri());
  }

  private void delete(Path p) throws IOException {
    p.getFileSystem(conf).delete(p, false);
  }

  @Benchmark
  public long ours() throws IOException {
    Path p = file();
    ParquetFileWriter w =
        new ParquetFileWriter(
            conf, p, structs.get(0).schema(), Set.of(), CompressionCodecName.SNAPPY);
    for (Struct s : structs) {
      w.write(s);
    }
    long len = w.finish().sizeBytes();
    delete(p);
    return len;
  }

  @Benchmark
  public long parquetAvro() throws IOException {
    Path p = file();
    try (ParquetWriter<GenericData.Record> w =
        AvroParquetWriter.<GenericData.Record>builder(HadoopOutputFile.fromPath(p, conf))
            .withSchema(avro.avroSchema(structs.get(0).schema()))
            .withConf(conf)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .build()) {
      for (Struct s : structs) {
        w.write(avro.toRecord(s));
      }
    }
    delete(p);
    return 0;
  }

  @Benchmark
  public long parquetAvroPreconverted() throws IOException {
    Path p = file();
    try (ParquetWriter<GenericData.Record> w =
        AvroParquetWriter.<GenericData.Record>builder(HadoopOutputFile.fromPath(p, conf))
            .withSchema(records.get(0).getSchema())
            .withConf(conf)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .build()) {
      for (GenericData.Record r : records) {
        w.write(r);
      }
    }
    delete(p);
    return 0;
  }

  /**
   * Runs the three benchmarks (extra JMH command-line options allowed) and prints records/s and
   * ratios.
   */
  public static void main(String[] args) throws Exception {
    CommandLineOptions cli = new CommandLineOptions(args);
    ChainedOptionsBuilder opts =
        new OptionsBuilder().parent(cli).include(EncodeBench.class.getName() + "\\.");
    Collection<RunResult> results = new Runner(opts.build()).run();
    double ours = 0;
    double pa = 0;
    double pre = 0;
    int rows = 0;
    for (RunResult r : results) {
      rows = Integer.parseInt(r.getParams().getParam("rows"));
      double perSec = r.getPrimaryResult().getScore() * rows;
      String name = r.getParams().getBenchmark();
      System.out.printf(
          Locale.ROOT,
          "[encode] %-26s %,12.0f records/s (± %,.0f)%n",
          name.substring(name.lastIndexOf('.') + 1),
          perSec,
          r.getPrimaryResult().getScoreError() * rows);
      if (name.endsWith(".ours")) {
        ours = perSec;
      } else if (name.endsWith(".parquetAvro")) {
        pa = perSec;
      } else {
        pre = perSec;
      }
    }
    if (ours > 0 && pa > 0) {
      System.out.printf(
          Locale.ROOT,
          "[encode] ours / parquet-avro (with Struct->GenericRecord) = %.2f (target >= 1.3: %s)%n",
          ours / pa,
          ours / pa >= 1.3 ? "met" : "NOT met");
    }
    if (ours > 0 && pre > 0) {
      System.out.printf(
          Locale.ROOT,
          "[encode] ours / parquet-avro (GenericRecords made in advance) = %.2f%n",
          ours / pre);
    }
  }
}
