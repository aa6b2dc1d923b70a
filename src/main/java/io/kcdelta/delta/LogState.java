package io.kcdelta.delta;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * What a writer needs to know of a table as of one version: protocol, metadata, every appId's txn
 * and every active domain, and when the version was committed. Not the data files: appends do not
 * need them. Immutable; {@link #next} folds the following commit in.
 */
public final class LogState {
  /** No table: no commit exists yet. */
  public static final LogState NONE = new LogState(-1, null, null, Map.of(), Map.of(), -1);

  private final long version;
  private final Protocol protocol;
  private final Metadata metadata;
  private final Map<String, Txn> txns;
  private final Map<String, DomainMetadata> domains;
  private final long timestampMs;

  LogState(
      long version,
      Protocol protocol,
      Metadata metadata,
      Map<String, Txn> txns,
      Map<String, DomainMetadata> domains,
      long timestampMs) {
    this.version = version;
    this.protocol = protocol;
    this.metadata = metadata;
    this.txns = Collections.unmodifiableMap(txns);
    this.domains = Collections.unmodifiableMap(domains);
    this.timestampMs = timestampMs;
  }

  /**
   * The state after {@code commit}, which must be version {@link #version()} + 1. Replaying the log
   * lets an appId's last txn and a domain's last action win, as here.
   */
  LogState next(LogCommit commit) {
    if (commit.version() != version + 1) {
      throw new IllegalArgumentException(
          "Version " + commit.version() + " does not follow version " + version);
    }
    Map<String, Txn> nextTxns = txns;
    if (!commit.txns().isEmpty()) {
      nextTxns = new HashMap<>(txns);
      for (Txn t : commit.txns()) {
        nextTxns.put(t.appId(), t);
      }
    }
    Map<String, DomainMetadata> nextDomains = domains;
    if (!commit.domains().isEmpty()) {
      nextDomains = new HashMap<>(domains);
      for (DomainMetadata d : commit.domains()) {
        if (d.removed()) {
          nextDomains.remove(d.domain());
        } else {
          nextDomains.put(d.domain(), d);
        }
      }
    }
    return new LogState(
        commit.version(),
        commit.protocol() != null ? commit.protocol() : protocol,
        commit.metadata() != null ? commit.metadata() : metadata,
        nextTxns,
        nextDomains,
        commit.timestampMs());
  }

  /** -1: no table yet. */
  public long version() {
    return version;
  }

  public boolean exists() {
    return version >= 0 && metadata != null;
  }

  /** Null when there is no table. */
  public Protocol protocol() {
    return protocol;
  }

  /** Null when there is no table. */
  public Metadata metadata() {
    return metadata;
  }

  /** The txn version of the appId (-1: none). */
  public long txnVersion(String appId) {
    Txn t = txns.get(appId);
    return t == null ? -1 : t.version();
  }

  /** The txn versions of these appIds (-1: none). */
  public Map<String, Long> txnVersions(Collection<String> appIds) {
    Map<String, Long> out = new HashMap<>();
    appIds.forEach(id -> out.put(id, txnVersion(id)));
    return out;
  }

  /** Every txn the table holds, by appId. */
  public Map<String, Txn> txns() {
    return txns;
  }

  /** The configuration of an active domain, or null. */
  public String domain(String name) {
    DomainMetadata d = domains.get(name);
    return d == null ? null : d.configuration();
  }

  /** When the version was committed (its in-commit timestamp where the table has them). */
  public long timestampMs() {
    return timestampMs;
  }
}
