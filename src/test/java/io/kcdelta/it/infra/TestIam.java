package io.kcdelta.it.infra;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The accounts, keys and roles the test STS and the signature-checking fronts share, and the record
 * of every call they saw: who signed it (access key id and principal ARN), which service and
 * operation, and how it was answered.
 */
public final class TestIam {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** An identity: a user or an assumed-role session. */
  public record Principal(String arn, String account, String userId) {}

  /**
   * Keys of a principal; a session (from STS) has a token and an expiry.
   *
   * @param issuedBy "user", "AssumeRole", "AssumeRoleWithWebIdentity" or "test"
   */
  public record Key(
      String accessKeyId,
      String secretAccessKey,
      String sessionToken,
      Instant expiration,
      Principal principal,
      String issuedBy) {
    @Override
    public String toString() {
      return "Key[" + accessKeyId + " of " + principal.arn() + "]";
    }
  }

  /**
   * A role: who may assume it (principal ARNs; a role ARN trusts its sessions), the external id it
   * demands (null: none), how long its sessions last (whatever was asked for, like the cap that
   * role chaining puts on sessions), and the web identity tokens it accepts.
   */
  public record Role(
      String arn,
      Set<String> trusted,
      String externalId,
      Duration sessionLifetime,
      Set<String> webIdentityTokens) {
    String account() {
      return arn.split(":")[4];
    }

    String name() {
      return arn.substring(arn.lastIndexOf('/') + 1);
    }
  }

  /** One request as a server saw it. {@code errorCode} null: it was let through. */
  public record Call(
      Instant at,
      String service,
      String operation,
      String accessKeyId,
      String principalArn,
      String errorCode,
      Map<String, String> details) {}

  /** The outcome of checking a request's signature: the key, or an error to answer. */
  public record Verdict(Key key, Refusal refusal) {
    public boolean ok() {
      return refusal == null;
    }
  }

  /** What the server answers instead of the request. */
  public enum Refusal {
    MISSING_AUTHENTICATION,
    UNKNOWN_KEY,
    INVALID_TOKEN,
    EXPIRED_TOKEN,
    SIGNATURE_MISMATCH,
    WRONG_SCOPE,
    ACCESS_DENIED
  }

  private final Map<String, Key> keys = new ConcurrentHashMap<>();
  private final Map<String, Role> roles = new ConcurrentHashMap<>();
  private final List<Call> calls = new ArrayList<>();
  private final Set<String> denied = ConcurrentHashMap.newKeySet();

  /** A user with a long-lived key. */
  public synchronized Key addUser(String account, String name) {
    Principal p =
        new Principal("arn:aws:iam::" + account + ":user/" + name, account, "AIDA" + random(16));
    Key k = new Key("AKIA" + random(16), random(40), null, null, p, "user");
    keys.put(k.accessKeyId(), k);
    return k;
  }

  public void addRole(Role role) {
    roles.put(role.arn(), role);
  }

  public Role role(String arn) {
    return roles.get(arn);
  }

  /** A session of {@code role}, as AssumeRole would hand out, valid for {@code lifetime}. */
  public Key issue(Role role, String sessionName, Duration lifetime, String issuedBy) {
    Principal p =
        new Principal(
            "arn:aws:sts::" + role.account() + ":assumed-role/" + role.name() + "/" + sessionName,
            role.account(),
            "AROA" + random(16) + ":" + sessionName);
    Key k =
        new Key(
            "ASIA" + random(16),
            random(40),
            Base64.getEncoder().encodeToString(randomBytes(96)),
            Instant.now().plus(lifetime).truncatedTo(ChronoUnit.MILLIS),
            p,
            issuedBy);
    keys.put(k.accessKeyId(), k);
    return k;
  }

  /** Every {@code operation} of {@code service} by {@code principalArn} is denied from now on. */
  public void deny(String service, String operation, String principalArn) {
    denied.add(service + "|" + operation + "|" + principalArn);
  }

  public boolean isDenied(String service, String operation, Principal p) {
    return denied.contains(service + "|" + operation + "|" + p.arn())
        || denied.contains(service + "|*|" + p.arn());
  }

  public Key key(String accessKeyId) {
    return keys.get(accessKeyId);
  }

  /** Every key so far, users' and sessions'. */
  public List<Key> keys() {
    return List.copyOf(keys.values());
  }

  /**
   * Checks {@code r}'s SigV4 signature for {@code service}: the key must be known, a session's
   * token must be the one issued with it and not expired, the signature must match the key's
   * secret.
   */
  public Verdict authenticate(SigV4.Request r, String service) {
    SigV4.Credential c = SigV4.parse(r.header("authorization"));
    if (c == null) {
      return new Verdict(null, Refusal.MISSING_AUTHENTICATION);
    }
    Key k = keys.get(c.accessKeyId());
    if (k == null) {
      return new Verdict(null, Refusal.UNKNOWN_KEY);
    }
    if (!service.equals(c.service())) {
      return new Verdict(k, Refusal.WRONG_SCOPE);
    }
    String token = r.header("x-amz-security-token");
    if (k.sessionToken() == null ? token != null : !k.sessionToken().equals(token)) {
      return new Verdict(k, Refusal.INVALID_TOKEN);
    }
    if (!SigV4.same(SigV4.expectedSignature(r, c, k.secretAccessKey()), c.signature())) {
      return new Verdict(k, Refusal.SIGNATURE_MISMATCH);
    }
    if (k.expiration() != null && !Instant.now().isBefore(k.expiration())) {
      return new Verdict(k, Refusal.EXPIRED_TOKEN);
    }
    return new Verdict(k, null);
  }

  public synchronized void record(Call call) {
    calls.add(call);
  }

  /** The calls so far, in the order they came. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  public List<Call> calls(Predicate<Call> which) {
    return calls().stream().filter(which).toList();
  }

  public synchronized void clearCalls() {
    calls.clear();
  }

  static String amzDate(Instant t) {
    return AMZ_DATE.format(t);
  }

  private static String random(int n) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }
}
