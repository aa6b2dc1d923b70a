package io.kcdelta.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The txn and add actions of one Delta table's commit files ({@code _delta_log/N.json}), read in
 * version order, each file once. Valid while no log file is deleted, which holds for a simulated
 * table: log cleanup only removes files older than the log retention (30 days).
 */
final class CommitFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final File logDir;
  private final Map<String, Long> txnVersions = new HashMap<>();
  private final Set<String> added = new HashSet<>();
  private final List<String> addedAgain = new ArrayList<>();
  private long nextVersion;

  CommitFiles(File logDir) {
    this.logDir = logDir;
  }

  /**
   * appId → version of its latest txn action, after reading the commits written since the last
   * call.
   */
  Map<String, Long> txnVersions() {
    readNew();
    return txnVersions;
  }

  /** "file F added twice (again in version V)" for each data file added by more than one commit. */
  List<String> filesAddedTwice() {
    readNew();
    return addedAgain;
  }

  private void readNew() {
    for (File f = commitFile(nextVersion); f.isFile(); f = commitFile(++nextVersion)) {
      read(f, nextVersion);
    }
  }

  private File commitFile(long version) {
    return new File(logDir, String.format("%020d.json", version));
  }

  private void read(File commit, long version) {
    try {
      List<JsonNode> actions = new ArrayList<>();
      Set<String> removed = new HashSet<>();
      for (String line : Files.readAllLines(commit.toPath())) {
        JsonNode action = JSON.readTree(line);
        actions.add(action);
        if (action.get("remove") != null) {
          removed.add(action.get("remove").get("path").asText());
        }
      }
      for (JsonNode action : actions) {
        JsonNode txn = action.get("txn");
        if (txn != null) {
          txnVersions.put(txn.get("appId").asText(), txn.get("version").asLong());
        }
        JsonNode add = action.get("add");
        // Upsert mode: a file's new deletion vector is its remove and add in one commit.
        boolean newVector = add != null && removed.contains(add.get("path").asText());
        if (add != null && !added.add(add.get("path").asText()) && !newVector) {
          addedAgain.add(
              "file "
                  + add.get("path").asText()
                  + " added twice (again in version "
                  + version
                  + ")");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
