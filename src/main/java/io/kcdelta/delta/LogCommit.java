package io.kcdelta.delta;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One commit file, {@code N.json}, parsed as far as folding it into a {@link LogState} needs: its
 * protocol, metadata, txn, domain and commitInfo actions. Its file actions ({@code add}, {@code
 * remove}) are parsed only when asked for: most of a commit's lines are adds that only a conflict
 * check looks at.
 */
public final class LogCommit {
  private final long version;
  private final long fileModificationTime;
  private Protocol protocol;
  private Metadata metadata;
  private final List<Txn> txns = new ArrayList<>();
  private final List<DomainMetadata> domains = new ArrayList<>();
  private Map<String, Object> commitInfo;
  private final List<String> addLines = new ArrayList<>();
  private final List<String> removeLines = new ArrayList<>();

  private LogCommit(long version, long fileModificationTime) {
    this.version = version;
    this.fileModificationTime = fileModificationTime;
  }

  /**
   * @throws IllegalArgumentException when a line is not a Delta action
   */
  static LogCommit parse(long version, long fileModificationTime, Iterable<String> lines) {
    LogCommit c = new LogCommit(version, fileModificationTime);
    for (String line : lines) {
      String kind = ActionJson.kind(line);
      if (kind == null) {
        if (line.isBlank()) {
          continue;
        }
        throw new IllegalArgumentException(
            "Version "
                + version
                + " holds a line that is not a Delta action: "
                + ActionJson.abbreviated(line));
      }
      switch (kind) {
        case "add" -> c.addLines.add(line);
        case "remove" -> c.removeLines.add(line);
        case "txn" -> c.txns.add(Txn.fromJson(ActionJson.body(line, kind)));
        case "metaData" -> c.metadata = Metadata.fromJson(ActionJson.body(line, kind));
        case "protocol" -> c.protocol = Protocol.fromJson(ActionJson.body(line, kind));
        case "domainMetadata" ->
            c.domains.add(DomainMetadata.fromJson(ActionJson.body(line, kind)));
        case "commitInfo" -> c.commitInfo = ActionJson.body(line, kind);
        default -> {
          // cdc and actions of newer writers: nothing a state or an append depends on
        }
      }
    }
    return c;
  }

  public long version() {
    return version;
  }

  /** Null: the commit did not change the protocol. */
  public Protocol protocol() {
    return protocol;
  }

  /** Null: the commit did not change the metadata. */
  public Metadata metadata() {
    return metadata;
  }

  public List<Txn> txns() {
    return Collections.unmodifiableList(txns);
  }

  public List<DomainMetadata> domains() {
    return Collections.unmodifiableList(domains);
  }

  /** The commitInfo action, or an empty map when the writer wrote none. */
  public Map<String, Object> commitInfo() {
    return commitInfo == null ? Map.of() : Collections.unmodifiableMap(commitInfo);
  }

  /**
   * When the commit happened: its in-commit timestamp, else its commitInfo's timestamp, else the
   * file's modification time.
   */
  public long timestampMs() {
    Long ict = ActionJson.longOrNull(commitInfo().get("inCommitTimestamp"));
    if (ict != null) {
      return ict;
    }
    Long ts = ActionJson.longOrNull(commitInfo().get("timestamp"));
    return ts != null ? ts : fileModificationTime;
  }

  /** The in-commit timestamp, or null when the commit has none. */
  Long inCommitTimestamp() {
    return ActionJson.longOrNull(commitInfo().get("inCommitTimestamp"));
  }

  public int addCount() {
    return addLines.size();
  }

  public List<AddFile> adds() {
    List<AddFile> out = new ArrayList<>(addLines.size());
    addLines.forEach(l -> out.add(AddFile.fromJson(ActionJson.body(l, "add"))));
    return out;
  }

  public List<RemoveFile> removes() {
    List<RemoveFile> out = new ArrayList<>(removeLines.size());
    removeLines.forEach(l -> out.add(RemoveFile.fromJson(ActionJson.body(l, "remove"))));
    return out;
  }
}
