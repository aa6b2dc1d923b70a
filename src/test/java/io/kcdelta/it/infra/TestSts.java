package io.kcdelta.it.infra;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * An STS server for tests, speaking the STS Query protocol (form-encoded POST, XML answers) for
 * AssumeRole, AssumeRoleWithWebIdentity and GetCallerIdentity. Signed calls are checked with {@link
 * TestIam#authenticate}; sessions come from {@link TestIam#issue}, so the fronts accept them; every
 * call is recorded in the {@link TestIam}.
 */
public final class TestSts implements AutoCloseable {
  private static final String NS = "https://sts.amazonaws.com/doc/2011-06-15/";

  private final TestIam iam;
  private final HttpServer server;

  public TestSts(TestIam iam) throws IOException {
    this.iam = iam;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4, r -> daemon(r)));
    server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      Map<String, String> params = new LinkedHashMap<>();
      parseForm(ex.getRequestURI().getRawQuery(), params);
      parseForm(new String(body, StandardCharsets.UTF_8), params);
      String action = params.getOrDefault("Action", "");
      switch (action) {
        case "AssumeRoleWithWebIdentity" -> assumeRoleWithWebIdentity(ex, params);
        case "AssumeRole", "GetCallerIdentity" -> {
          TestIam.Verdict v = iam.authenticate(request(ex, body), "sts");
          if (!v.ok()) {
            record(action, v.key(), refusalCode(v.refusal()), params);
            error(
                ex, refusalStatus(v.refusal()), refusalCode(v.refusal()), refusalText(v.refusal()));
            return;
          }
          if (action.equals("GetCallerIdentity")) {
            record(action, v.key(), null, params);
            TestIam.Principal p = v.key().principal();
            answer(
                ex,
                "GetCallerIdentity",
                "<Arn>"
                    + p.arn()
                    + "</Arn><UserId>"
                    + p.userId()
                    + "</UserId><Account>"
                    + p.account()
                    + "</Account>");
          } else {
            assumeRole(ex, v.key(), params);
          }
        }
        default -> error(ex, 400, "InvalidAction", "Could not find operation " + action);
      }
    }
  }

  private void assumeRole(HttpExchange ex, TestIam.Key caller, Map<String, String> params)
      throws IOException {
    TestIam.Role role = iam.role(params.get("RoleArn"));
    String who = caller.principal().arn();
    boolean trusted =
        role != null
            && (role.trusted().contains(who) || role.trusted().contains(roleArnOfSession(who)));
    boolean externalIdOk =
        role != null
            && (role.externalId() == null
                ? params.get("ExternalId") == null
                : role.externalId().equals(params.get("ExternalId")));
    if (!trusted || !externalIdOk) {
      record("AssumeRole", caller, "AccessDenied", params);
      error(
          ex,
          403,
          "AccessDenied",
          "User: "
              + who
              + " is not authorized to perform: sts:AssumeRole on resource: "
              + params.get("RoleArn"));
      return;
    }
    TestIam.Key session =
        iam.issue(
            role,
            params.getOrDefault("RoleSessionName", "session"),
            role.sessionLifetime(),
            "AssumeRole");
    Map<String, String> details = new LinkedHashMap<>(params);
    details.put("IssuedAccessKeyId", session.accessKeyId());
    record("AssumeRole", caller, null, details);
    answer(ex, "AssumeRole", credentialsXml(session) + assumedRoleUserXml(session));
  }

  private void assumeRoleWithWebIdentity(HttpExchange ex, Map<String, String> params)
      throws IOException {
    TestIam.Role role = iam.role(params.get("RoleArn"));
    String token = params.get("WebIdentityToken");
    if (role == null || token == null || !role.webIdentityTokens().contains(token)) {
      recordAnonymous("AssumeRoleWithWebIdentity", "AccessDenied", params);
      error(ex, 403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity");
      return;
    }
    TestIam.Key session =
        iam.issue(
            role,
            params.getOrDefault("RoleSessionName", "web-identity"),
            role.sessionLifetime(),
            "AssumeRoleWithWebIdentity");
    Map<String, String> details = new LinkedHashMap<>(params);
    details.remove("WebIdentityToken");
    details.put("IssuedAccessKeyId", session.accessKeyId());
    recordAnonymous("AssumeRoleWithWebIdentity", null, details);
    answer(
        ex,
        "AssumeRoleWithWebIdentity",
        credentialsXml(session)
            + "<SubjectFromWebIdentityToken>system:serviceaccount:kafka:connect</SubjectFromWebIdentityToken>"
            + assumedRoleUserXml(session)
            + "<Provider>oidc.test.local</Provider><Audience>sts.amazonaws.com</Audience>");
  }

  /** arn:aws:iam::ACCOUNT:role/NAME for a session arn:aws:sts::ACCOUNT:assumed-role/NAME/S. */
  private static String roleArnOfSession(String principalArn) {
    if (!principalArn.contains(":assumed-role/")) {
      return principalArn;
    }
    String[] parts = principalArn.split(":", 6);
    String[] path = parts[5].split("/");
    return "arn:aws:iam::" + parts[4] + ":role/" + path[1];
  }

  private static String credentialsXml(TestIam.Key k) {
    return "<Credentials><AccessKeyId>"
        + k.accessKeyId()
        + "</AccessKeyId><SecretAccessKey>"
        + k.secretAccessKey()
        + "</SecretAccessKey><SessionToken>"
        + k.sessionToken()
        + "</SessionToken><Expiration>"
        + k.expiration()
        + "</Expiration></Credentials>";
  }

  private static String assumedRoleUserXml(TestIam.Key k) {
    return "<AssumedRoleUser><AssumedRoleId>"
        + k.principal().userId()
        + "</AssumedRoleId><Arn>"
        + k.principal().arn()
        + "</Arn></AssumedRoleUser>";
  }

  private static void answer(HttpExchange ex, String action, String result) throws IOException {
    String xml =
        "<"
            + action
            + "Response xmlns=\""
            + NS
            + "\"><"
            + action
            + "Result>"
            + result
            + "</"
            + action
            + "Result><ResponseMetadata><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ResponseMetadata></"
            + action
            + "Response>";
    send(ex, 200, xml);
  }

  private static void error(HttpExchange ex, int status, String code, String message)
      throws IOException {
    String xml =
        "<ErrorResponse xmlns=\""
            + NS
            + "\"><Error><Type>Sender</Type><Code>"
            + code
            + "</Code><Message>"
            + escape(message)
            + "</Message></Error><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ErrorResponse>";
    send(ex, status, xml);
  }

  private static void send(HttpExchange ex, int status, String xml) throws IOException {
    byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/xml");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  static String refusalCode(TestIam.Refusal r) {
    return switch (r) {
      case MISSING_AUTHENTICATION -> "MissingAuthenticationToken";
      case UNKNOWN_KEY, INVALID_TOKEN -> "InvalidClientTokenId";
      case EXPIRED_TOKEN -> "ExpiredToken";
      case SIGNATURE_MISMATCH, WRONG_SCOPE -> "SignatureDoesNotMatch";
      case ACCESS_DENIED -> "AccessDenied";
    };
  }

  private static int refusalStatus(TestIam.Refusal r) {
    return r == TestIam.Refusal.EXPIRED_TOKEN ? 400 : 403;
  }

  private static String refusalText(TestIam.Refusal r) {
    return switch (r) {
      case MISSING_AUTHENTICATION -> "Request is missing Authentication Token";
      case UNKNOWN_KEY, INVALID_TOKEN -> "The security token included in the request is invalid.";
      case EXPIRED_TOKEN -> "The security token included in the request is expired";
      case SIGNATURE_MISMATCH, WRONG_SCOPE ->
          "The request signature we calculated does not match the signature you provided. "
              + "Check your AWS Secret Access Key and signing method.";
      case ACCESS_DENIED -> "Access denied";
    };
  }

  private void record(String action, TestIam.Key k, String error, Map<String, String> params) {
    iam.record(
        new TestIam.Call(
            Instant.now(),
            "sts",
            action,
            k == null ? null : k.accessKeyId(),
            k == null ? null : k.principal().arn(),
            error,
            Map.copyOf(params)));
  }

  private void recordAnonymous(String action, String error, Map<String, String> params) {
    iam.record(
        new TestIam.Call(Instant.now(), "sts", action, null, null, error, Map.copyOf(params)));
  }

  private static SigV4.Request request(HttpExchange ex, byte[] body) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    ex.getRequestHeaders()
        .forEach(
            (name, values) ->
                values.forEach(v -> headers.add(new AbstractMap.SimpleEntry<>(name, v))));
    URI uri = ex.getRequestURI();
    return new SigV4.Request(
        ex.getRequestMethod(), uri.getRawPath(), uri.getRawQuery(), headers, body);
  }

  private static void parseForm(String form, Map<String, String> into) {
    if (form == null || form.isEmpty()) {
      return;
    }
    for (String pair : form.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      into.put(k, v);
    }
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "test-sts");
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
