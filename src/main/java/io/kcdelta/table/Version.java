package io.kcdelta.table;

/** The connector's version, from the jar manifest (unknown when run from classes). */
public final class Version {
  private Version() {}

  public static String get() {
    String v = Version.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
