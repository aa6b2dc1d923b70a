package io.kcdelta.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class HadoopDefaultResourcesTest {
  /** fs.defaultFS is set by core-default.xml only: Hadoop's code has no default for it. */
  @Test
  void aSuspensionHidesTheShippedDefaultsAndItsEndBringsThemBack() {
    try (HadoopDefaultResources defaults = HadoopDefaultResources.suspend()) {
      assertNull(new Configuration().get("fs.defaultFS"));
      new org.apache.hadoop.mapred.JobConf(); // its class initialiser adds mapred and yarn defaults
      defaults.again();
      assertNull(new Configuration().get("mapreduce.framework.name"));
    }
    assertEquals("file:///", new Configuration().get("fs.defaultFS"));
    assertEquals("local", new Configuration().get("mapreduce.framework.name"));
  }
}
