package io.kcdelta.sim;

import java.lang.reflect.Field;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * Suspends Hadoop's JVM-wide list of default resources (core-default.xml, core-site.xml, and the
 * mapred, yarn and hdfs ones that JobConf and HdfsConfiguration add when they are first loaded)
 * while a simulation runs, and restores it afterwards.
 *
 * <p>Why: Delta Standalone reads each checkpoint through parquet4s, which builds its reader from a
 * throwaway {@code new Configuration()} before it hands over the one it was given. That throwaway
 * parses those ten resources, scanning the class path for the six that do not exist: about 6 ms
 * each, at every snapshot of a table with a checkpoint, a quarter of the simulation's CPU. The
 * writers' own Configuration never holds Hadoop's shipped defaults in the simulation (see {@code
 * Simulation.HADOOP}), so this changes nothing they read; {@code -Dsim.hadoopDefaults=true} keeps
 * both.
 *
 * <p>The list is private to Hadoop and shared by the whole JVM: restore it before another test
 * builds a Configuration. A Configuration made meanwhile keeps what it loaded.
 */
final class HadoopDefaultResources implements AutoCloseable {
  private static final Field DEFAULT_RESOURCES;

  static {
    try {
      DEFAULT_RESOURCES = Configuration.class.getDeclaredField("defaultResources");
      DEFAULT_RESOURCES.setAccessible(true);
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Every resource suspended so far, in the order Hadoop held them. */
  private final Set<String> suspended = new LinkedHashSet<>();

  private HadoopDefaultResources() {}

  /** Empties the list now; {@link #again()} empties it of what classes loaded since then added. */
  static HadoopDefaultResources suspend() {
    HadoopDefaultResources r = new HadoopDefaultResources();
    r.again();
    return r;
  }

  synchronized void again() {
    List<String> list = list();
    suspended.addAll(list);
    list.clear();
  }

  @Override
  public synchronized void close() {
    again();
    list().addAll(suspended);
  }

  @SuppressWarnings("unchecked")
  private static List<String> list() {
    try {
      return (List<String>) DEFAULT_RESOURCES.get(null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
