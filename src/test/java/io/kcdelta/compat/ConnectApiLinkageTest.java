package io.kcdelta.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kcdelta.DeltaSinkTask;
import io.kcdelta.compat.ApiLinkage.Hierarchy;
import io.kcdelta.compat.ApiLinkage.Kind;
import io.kcdelta.compat.ApiLinkage.Problem;
import io.kcdelta.compat.ApiLinkage.Ref;
import io.kcdelta.compat.ApiLinkage.Scan;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Opcodes;

/**
 * The plugin is compiled against a recent connect-api but must link on every worker from Connect
 * 3.0 on. This reads the compiled main classes (ASM, {@link ApiLinkage}) and resolves every
 * reference they make into {@code org.apache.kafka} against the class files of connect-api and
 * kafka-clients 3.0.2, which Maven copies to {@code target/connect-api-3.0/}. Only the
 * compatibility seam may reach newer APIs, and only the references listed in {@link #ALLOWED}.
 */
class ConnectApiLinkageTest {
  private static final String OLDEST = System.getProperty("kcdelta.oldestConnect.version", "3.0.2");

  /**
   * An unresolved reference that {@code caller} may make: one member, or a whole class and its
   * members.
   */
  record Allowed(String caller, String target, String why) {
    boolean covers(Problem p) {
      Ref r = p.ref();
      return ApiLinkage.dotted(r.caller()).equals(caller)
          && (r.target().equals(target) || ApiLinkage.dotted(r.owner()).equals(target));
    }

    @Override
    public String toString() {
      return caller + " → " + target;
    }
  }

  private static final String SINK_RECORD = "org.apache.kafka.connect.sink.SinkRecord";
  private static final String PLUGIN_METRICS = "org.apache.kafka.common.metrics.PluginMetrics";
  private static final String ON_36 =
      "Connect 3.6 (KIP-793); reached only through RecordOrigin.ORIGINAL, which"
          + " ConnectApi picks only when SinkRecord has originalTopic()";
  private static final String ON_41 =
      "Connect 4.1 (KIP-877); PluginMetricRegistry is loaded only when ConnectApi"
          + " found SinkTaskContext.pluginMetrics()";

  /** The only references into Kafka that Connect 3.0 may lack: the compatibility seam's. */
  static final List<Allowed> ALLOWED =
      List.of(
          new Allowed(
              "io.kcdelta.record.RecordOrigin$1",
              SINK_RECORD + ".originalTopic ()Ljava/lang/String;",
              ON_36),
          new Allowed(
              "io.kcdelta.record.RecordOrigin$1",
              SINK_RECORD + ".originalKafkaPartition ()Ljava/lang/Integer;",
              ON_36),
          new Allowed(
              "io.kcdelta.record.RecordOrigin$1", SINK_RECORD + ".originalKafkaOffset ()J", ON_36),
          new Allowed("io.kcdelta.compat.PluginMetricRegistry", PLUGIN_METRICS, ON_41),
          new Allowed(
              "io.kcdelta.compat.ConnectApi",
              "org.apache.kafka.connect.sink.SinkTaskContext.pluginMetrics"
                  + " ()Lorg/apache/kafka/common/metrics/PluginMetrics;",
              ON_41 + "; called only then"),
          new Allowed(
              "io.kcdelta.compat.ConnectApi",
              PLUGIN_METRICS,
              ON_41
                  + "; the type of pluginMetrics() and of new PluginMetricRegistry(PluginMetrics, …)"));

  private static Path mainClasses;
  private static Hierarchy compiled;
  private static Hierarchy old;
  private static Scan scan;

  @BeforeAll
  static void scanMainClasses() throws URISyntaxException {
    mainClasses =
        Paths.get(DeltaSinkTask.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertTrue(
        Files.isDirectory(mainClasses) && mainClasses.endsWith(Paths.get("target", "classes")),
        "main classes should come from target/classes, not " + mainClasses);
    Path oldDir =
        Paths.get(System.getProperty("kcdelta.oldestConnect.dir", "target/connect-api-3.0"));
    List<Path> oldJars =
        List.of(
            oldDir.resolve("connect-api-" + OLDEST + ".jar"),
            oldDir.resolve("kafka-clients-" + OLDEST + ".jar"));
    for (Path jar : oldJars) {
      assertTrue(
          Files.isRegularFile(jar),
          jar
              + " missing: maven-dependency-plugin copies it at"
              + " generate-test-resources (run through ./mvnw)");
    }
    ClassLoader testClasspath = ConnectApiLinkageTest.class.getClassLoader();
    ApiLinkage.ClassBytes main = ApiLinkage.directory(mainClasses);
    ApiLinkage.ClassBytes rest = ApiLinkage.resources(testClasspath);
    compiled = new Hierarchy("the compile-time Connect API", ApiLinkage.layered(main, rest, rest));
    old =
        new Hierarchy(
            "Connect " + OLDEST, ApiLinkage.layered(main, ApiLinkage.jars(oldJars), rest));
    scan = ApiLinkage.scan(mainClasses, compiled, old);

    System.out.printf(
        "Scanned %d main classes: %d distinct references into org.apache.kafka resolved against"
            + " Connect %s, %d unresolved (%d allowed)%n",
        scan.classes().size(),
        scan.references().size(),
        OLDEST,
        scan.problems().size(),
        scan.problems().stream().filter(ConnectApiLinkageTest::allowed).count());
    scan.problems()
        .forEach(p -> System.out.println("  " + (allowed(p) ? "allowed: " : "NOT ALLOWED: ") + p));
    System.out.printf(
        "%d overrides of Kafka methods, %d of them absent in Connect %s (harmless: never called"
            + " there):%n",
        scan.overrides().size(), scan.overridesMissingInOld().size(), OLDEST);
    scan.overridesMissingInOld().forEach(o -> System.out.println("  " + o));
    System.out.println("All references checked:");
    scan.references().stream()
        .map(r -> "  " + r.kind() + " " + r.line())
        .sorted()
        .forEach(System.out::println);
  }

  private static boolean allowed(Problem p) {
    return ALLOWED.stream().anyMatch(a -> a.covers(p));
  }

  @Test
  void nothingOutsideTheSeamLinksAgainstAnApiConnect30Lacks() {
    List<Problem> unresolved = scan.problems().stream().filter(p -> !allowed(p)).toList();
    if (!unresolved.isEmpty()) {
      fail(
          unresolved.size()
              + " reference(s) into org.apache.kafka that a Connect "
              + OLDEST
              + " worker cannot link (go through io.kcdelta.compat.ConnectApi, or extend ALLOWED with the reason):\n"
              + unresolved.stream().map(p -> "  " + p).collect(Collectors.joining("\n")));
    }
  }

  @Test
  void everyAllowedReferenceIsMadeAndMissingInConnect30() {
    List<Allowed> stale =
        ALLOWED.stream().filter(a -> scan.problems().stream().noneMatch(a::covers)).toList();
    assertEquals(
        List.of(),
        stale,
        "allow-list entries that no longer name an unresolved reference: remove them");
  }

  @Test
  void theScannerSeesEveryMainClassAndTheSeamsNewApis() throws IOException {
    try (Stream<Path> files = Files.walk(mainClasses)) {
      // package-info holds no code; the scanner skips it (and module-info) too.
      long classFiles =
          files
              .map(p -> p.getFileName().toString())
              .filter(
                  n ->
                      n.endsWith(".class")
                          && !n.equals("package-info.class")
                          && !n.equals("module-info.class"))
              .count();
      assertEquals(classFiles, scan.classes().size(), "every class file under " + mainClasses);
    }
    assertTrue(scan.classes().size() > 50, "scanned " + scan.classes().size() + " classes");
    assertTrue(
        scan.references().size() > 200, "collected " + scan.references().size() + " references");
    // Known references, resolved and not: the scanner and the resolver are both at work.
    assertTrue(
        scan.references()
            .contains(
                Ref.type(
                    "io/kcdelta/DeltaSinkTask",
                    Kind.EXTENDS,
                    "org/apache/kafka/connect/sink/SinkTask")));
    assertTrue(
        scan.references().stream()
            .anyMatch(
                r ->
                    r.caller().equals("io/kcdelta/DeltaSinkTask")
                        && r.kind() == Kind.FIELD
                        && r.name().equals("context")),
        "DeltaSinkTask reads SinkTask.context");
    assertTrue(
        scan.problems().stream()
            .anyMatch(
                p ->
                    p.ref()
                        .line()
                        .equals(
                            "io.kcdelta.record.RecordOrigin$1 → "
                                + SINK_RECORD
                                + ".originalTopic ()Ljava/lang/String;")),
        "RecordOrigin$1 → SinkRecord.originalTopic");
    assertTrue(
        scan.problems().stream()
            .anyMatch(
                p ->
                    p.ref().caller().equals("io/kcdelta/compat/PluginMetricRegistry")
                        && p.ref()
                            .target()
                            .equals(
                                PLUGIN_METRICS
                                    + ".addSensor (Ljava/lang/String;)Lorg/apache/kafka/common/metrics/Sensor;")),
        "PluginMetricRegistry → PluginMetrics.addSensor");
    assertTrue(
        scan.overrides().stream()
            .anyMatch(
                o ->
                    o.toString()
                        .equals(
                            "io.kcdelta.DeltaSinkTask overrides"
                                + " org.apache.kafka.connect.sink.SinkTask.put (Ljava/util/Collection;)V")),
        "overrides: " + scan.overrides());
  }

  @Test
  void theResolverReadsTheOldJarsAndMatchesWholeDescriptors() {
    String sensor = "org/apache/kafka/common/metrics/Sensor";
    String add =
        "(Lorg/apache/kafka/common/MetricName;Lorg/apache/kafka/common/metrics/MeasurableStat;)";
    assertEquals(Optional.empty(), old.problem(method(sensor, "add", add + "Z", false)));
    assertEquals(
        Optional.of("missing in Connect " + OLDEST),
        old.problem(method(sensor, "add", add + "V", false)),
        "the return type is part of the descriptor");
    // Inherited: SinkRecord.topic() is declared in ConnectRecord.
    String sinkRecord = "org/apache/kafka/connect/sink/SinkRecord";
    assertEquals(
        Optional.empty(), old.problem(method(sinkRecord, "topic", "()Ljava/lang/String;", false)));
    // The old jars, not the compile-time classpath, answer.
    Ref originalTopic = method(sinkRecord, "originalTopic", "()Ljava/lang/String;", false);
    assertEquals(Optional.empty(), compiled.problem(originalTopic));
    assertEquals(Optional.of("missing in Connect " + OLDEST), old.problem(originalTopic));
    Ref pluginMetrics =
        Ref.type("io/kcdelta/X", Kind.CLASS, "org/apache/kafka/common/metrics/PluginMetrics");
    assertEquals(Optional.empty(), compiled.problem(pluginMetrics));
    assertEquals(Optional.of("missing in Connect " + OLDEST), old.problem(pluginMetrics));
    // Interface vs class, static vs instance.
    assertTrue(old.problem(method(sinkRecord, "topic", "()Ljava/lang/String;", true)).isPresent());
    assertTrue(
        old.problem(
                new Ref(
                    "io/kcdelta/X",
                    Kind.METHOD,
                    sinkRecord,
                    "topic",
                    "()Ljava/lang/String;",
                    Opcodes.INVOKESTATIC,
                    false))
            .isPresent());
  }

  private static Ref method(String owner, String name, String descriptor, boolean itf) {
    return new Ref(
        "io/kcdelta/X",
        Kind.METHOD,
        owner,
        name,
        descriptor,
        itf ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL,
        itf);
  }
}
