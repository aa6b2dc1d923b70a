package io.kcdelta.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppendCommitFileTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir java.nio.file.Path dir;

  @Test
  void writesWhatDeltaStandaloneWritesForTheSameActions() throws Exception {
    AppendFixture table = new AppendFixture(dir, Map.of());
    List<Action> actions = new ArrayList<>(AppendFixture.append("p=a/f1.parquet", "a", "app-0", 7));
    actions.addAll(
        AppendFixture.append("p=__HIVE_DEFAULT_PARTITION__/f2.parquet", null, "app-1", 9));
    OptimisticTransaction txn = table.newLog().startTransaction();
    txn.txnVersion("app-0");
    txn.txnVersion("app-1");
    txn.commit(actions, AppendFixture.write(), DeltaCommitter.ENGINE_INFO);

    List<String> ours =
        AppendCommitFile.lines(
            actions, AppendFixture.write(), 0, DeltaCommitter.ENGINE_INFO, 1_700_000_000_002L);
    List<String> theirs = Files.readAllLines(dir.resolve("_delta_log/00000000000000000001.json"));

    assertEquals(theirs.size(), ours.size(), () -> "theirs " + theirs + "\nours " + ours);
    for (int i = 0; i < ours.size(); i++) {
      assertEquals(comparable(theirs.get(i)), comparable(ours.get(i)), "line " + i);
    }
    // Honest about who wrote it: Delta Standalone adds its own name to the engine's.
    assertEquals(DeltaCommitter.ENGINE_INFO + " Delta-Standalone/3.3.2", engineInfo(theirs.get(0)));
    assertEquals(DeltaCommitter.ENGINE_INFO, engineInfo(ours.get(0)));
  }

  private static String engineInfo(String commitInfo) throws Exception {
    return JSON.readTree(commitInfo).get("commitInfo").get("engineInfo").asText();
  }

  /** The line without what differs between two commits of the same actions. */
  private static JsonNode comparable(String line) throws Exception {
    JsonNode node = JSON.readTree(line);
    if (node.has("commitInfo")) {
      ((ObjectNode) node.get("commitInfo")).remove(List.of("timestamp", "engineInfo"));
    }
    return node;
  }
}
