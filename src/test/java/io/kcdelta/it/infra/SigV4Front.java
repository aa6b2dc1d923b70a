package io.kcdelta.it.infra;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A signature-checking front for a test server that checks none (dynalite) or cannot take session
 * tokens (s3proxy answers 501 to any request with {@code x-amz-security-token}): each request's
 * SigV4 signature is verified against the keys of a {@link TestIam} (a session's token must match
 * and not have expired), recorded with the access key id and operation, and then either passed on
 * to the server (for S3 without the token header, to an s3proxy without authentication) or answered
 * with the service's own error shape: S3's XML errors, DynamoDB's JSON ones.
 *
 * <p>HTTP/1.1 with Content-Length bodies, as the AWS SDK sends them; a request with {@code Expect:
 * 100-continue} is judged by its head (the server's 100 Continue reaches the client only if the
 * request is let through), so its body is not hashed here (S3 signs the declared payload hash,
 * which is among the signed headers). A refused request closes the connection.
 */
public final class SigV4Front implements AutoCloseable {
  /** The services a front can stand for. */
  public enum Service {
    S3("s3"),
    DYNAMODB("dynamodb");

    final String signingName;

    Service(String signingName) {
      this.signingName = signingName;
    }
  }

  private static final Pattern TABLE_NAME = Pattern.compile("\"TableName\"\\s*:\\s*\"([^\"]+)\"");

  private final Service service;
  private final InetSocketAddress target;
  private final TestIam iam;
  private final ServerSocket server;

  public SigV4Front(Service service, URI target, TestIam iam) throws IOException {
    this.service = service;
    this.target = new InetSocketAddress(target.getHost(), target.getPort());
    this.iam = iam;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "sigv4-front-" + service.signingName);
    accept.setDaemon(true);
    accept.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        daemon(() -> serve(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try (client) {
      InputStream in = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        String[] lines = head.split("\r\n");
        String[] requestLine = lines[0].split(" ");
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
          int colon = lines[i].indexOf(':');
          if (colon > 0) {
            headers.add(
                new AbstractMap.SimpleEntry<>(
                    lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()));
          }
        }
        String target = requestLine[1];
        int q = target.indexOf('?');
        String rawPath = q < 0 ? target : target.substring(0, q);
        String rawQuery = q < 0 ? null : target.substring(q + 1);
        long length = 0;
        boolean expectContinue = false;
        for (Map.Entry<String, String> h : headers) {
          String name = h.getKey().toLowerCase(Locale.ROOT);
          if (name.equals("content-length")) {
            length = Long.parseLong(h.getValue());
          } else if (name.equals("transfer-encoding")) {
            throw new IOException("chunked request bodies are not supported by this test front");
          } else if (name.equals("expect")
              && h.getValue().toLowerCase(Locale.ROOT).contains("100-continue")) {
            expectContinue = true;
          }
        }
        byte[] body = expectContinue ? null : in.readNBytes((int) length);
        SigV4.Request request = new SigV4.Request(requestLine[0], rawPath, rawQuery, headers, body);
        String operation = operation(request);
        TestIam.Verdict verdict = iam.authenticate(request, service.signingName);
        TestIam.Refusal refusal = verdict.refusal();
        if (refusal == null
            && iam.isDenied(service.signingName, operation, verdict.key().principal())) {
          refusal = TestIam.Refusal.ACCESS_DENIED;
        }
        Map<String, String> details = new LinkedHashMap<>();
        details.put("method", requestLine[0]);
        details.put("path", rawPath);
        if (service == Service.DYNAMODB && body != null) {
          Matcher table = TABLE_NAME.matcher(new String(body, StandardCharsets.UTF_8));
          if (table.find()) {
            details.put("table", table.group(1));
          }
        }
        TestIam.Key key = verdict.key();
        SigV4.Credential credential = SigV4.parse(request.header("authorization"));
        iam.record(
            new TestIam.Call(
                Instant.now(),
                service.signingName,
                operation,
                credential == null ? null : credential.accessKeyId(),
                key == null ? null : key.principal().arn(),
                refusal == null ? null : code(refusal),
                details));
        if (refusal != null) {
          refuse(toClient, request, refusal, key, operation);
          return;
        }
        if (upstream == null) {
          upstream = new Socket(this.target.getAddress(), this.target.getPort());
          Socket up = upstream;
          daemon(() -> copy(up, client));
        }
        OutputStream out = upstream.getOutputStream();
        StringBuilder forwarded = new StringBuilder(lines[0]).append("\r\n");
        for (Map.Entry<String, String> h : headers) {
          if (service == Service.S3 && h.getKey().equalsIgnoreCase("x-amz-security-token")) {
            continue;
          }
          forwarded.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        forwarded.append("\r\n");
        out.write(forwarded.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
          out.write(body);
        } else {
          byte[] buffer = new byte[8192];
          for (long left = length; left > 0; ) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
              return;
            }
            out.write(buffer, 0, n);
            left -= n;
          }
        }
        out.flush();
      }
    } catch (IOException e) {
      // The client or the server closed the connection.
    } finally {
      if (upstream != null) {
        try {
          upstream.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }
  }

  /** The API operation a request is, in the service's own names. */
  String operation(SigV4.Request r) {
    if (service == Service.DYNAMODB) {
      String target = r.header("x-amz-target");
      return target == null ? "?" : target.substring(target.indexOf('.') + 1);
    }
    String query = r.rawQuery() == null ? "" : "&" + r.rawQuery() + "&";
    boolean bucketOnly = r.rawPath().replaceFirst("^/[^/]*/?", "").isEmpty();
    return switch (r.method()) {
      case "GET" ->
          query.contains("&list-type=2")
              ? "ListObjectsV2"
              : query.contains("&uploads")
                  ? "ListMultipartUploads"
                  : query.contains("&uploadId=")
                      ? "ListParts"
                      : bucketOnly ? "ListObjects" : "GetObject";
      case "HEAD" -> bucketOnly ? "HeadBucket" : "HeadObject";
      case "PUT" ->
          query.contains("&partNumber=")
              ? "UploadPart"
              : r.header("x-amz-copy-source") != null ? "CopyObject" : "PutObject";
      case "POST" ->
          query.contains("&uploads")
              ? "CreateMultipartUpload"
              : query.contains("&uploadId=")
                  ? "CompleteMultipartUpload"
                  : query.contains("&delete") ? "DeleteObjects" : "PostObject";
      case "DELETE" -> query.contains("&uploadId=") ? "AbortMultipartUpload" : "DeleteObject";
      default -> r.method();
    };
  }

  private String code(TestIam.Refusal r) {
    if (service == Service.S3) {
      return switch (r) {
        case MISSING_AUTHENTICATION, ACCESS_DENIED -> "AccessDenied";
        case UNKNOWN_KEY -> "InvalidAccessKeyId";
        case INVALID_TOKEN -> "InvalidToken";
        case EXPIRED_TOKEN -> "ExpiredToken";
        case SIGNATURE_MISMATCH, WRONG_SCOPE -> "SignatureDoesNotMatch";
      };
    }
    return switch (r) {
      case MISSING_AUTHENTICATION -> "MissingAuthenticationTokenException";
      case UNKNOWN_KEY, INVALID_TOKEN -> "UnrecognizedClientException";
      case EXPIRED_TOKEN -> "ExpiredTokenException";
      case SIGNATURE_MISMATCH, WRONG_SCOPE -> "InvalidSignatureException";
      case ACCESS_DENIED -> "AccessDeniedException";
    };
  }

  private void refuse(
      OutputStream out, SigV4.Request r, TestIam.Refusal refusal, TestIam.Key key, String operation)
      throws IOException {
    String code = code(refusal);
    String message = message(refusal, key, operation);
    int status;
    String contentType;
    String body;
    if (service == Service.S3) {
      status =
          switch (refusal) {
            case INVALID_TOKEN, EXPIRED_TOKEN -> 400;
            default -> 403;
          };
      contentType = "application/xml";
      body =
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
              + code
              + "</Code><Message>"
              + message
              + "</Message><RequestId>"
              + UUID.randomUUID()
              + "</RequestId></Error>";
    } else {
      // DynamoDB answers every refusal of credentials or rights with 400.
      status = 400;
      contentType = "application/x-amz-json-1.0";
      String prefix =
          refusal == TestIam.Refusal.UNKNOWN_KEY || refusal == TestIam.Refusal.INVALID_TOKEN
              ? "com.amazonaws.dynamodb.v20120810#"
              : "com.amazon.coral.service#";
      body = "{\"__type\":\"" + prefix + code + "\",\"message\":\"" + message + "\"}";
    }
    // S3 answers a HEAD request with the status alone.
    byte[] bytes = r.method().equals("HEAD") ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    String response =
        "HTTP/1.1 "
            + status
            + (status == 400 ? " Bad Request" : " Forbidden")
            + "\r\nContent-Type: "
            + contentType
            + "\r\nx-amzn-RequestId: "
            + UUID.randomUUID()
            + "\r\nContent-Length: "
            + bytes.length
            + "\r\nConnection: close\r\n\r\n";
    out.write(response.getBytes(StandardCharsets.ISO_8859_1));
    out.write(bytes);
    out.flush();
  }

  private String message(TestIam.Refusal r, TestIam.Key key, String operation) {
    boolean s3 = service == Service.S3;
    return switch (r) {
      case MISSING_AUTHENTICATION ->
          s3 ? "Access Denied" : "Request is missing Authentication Token";
      case UNKNOWN_KEY ->
          s3
              ? "The AWS Access Key Id you provided does not exist in our records."
              : "The security token included in the request is invalid.";
      case INVALID_TOKEN ->
          s3
              ? "The provided token is malformed or otherwise invalid."
              : "The security token included in the request is invalid.";
      case EXPIRED_TOKEN ->
          s3
              ? "The provided token has expired."
              : "The security token included in the request is expired";
      case SIGNATURE_MISMATCH, WRONG_SCOPE ->
          "The request signature we calculated does not match the signature you provided. Check your key and signing method.";
      case ACCESS_DENIED ->
          s3
              ? "Access Denied"
              : "User: "
                  + key.principal().arn()
                  + " is not authorized to perform: dynamodb:"
                  + operation;
    };
  }

  /** The request line and headers up to the empty line (excluded); null at end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b = in.read(); b >= 0; b = in.read()) {
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        String s = head.toString(StandardCharsets.ISO_8859_1);
        return s.substring(0, s.length() - 4);
      }
    }
    return null;
  }

  private static void copy(Socket from, Socket to) {
    try {
      from.getInputStream().transferTo(to.getOutputStream());
    } catch (IOException e) {
      // Closed.
    } finally {
      try {
        to.close();
      } catch (IOException ignored) {
        // Closing.
      }
    }
  }

  private static void daemon(Runnable r) {
    Thread t = new Thread(r, "sigv4-front-connection");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
