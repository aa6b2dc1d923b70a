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
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 proxy in front of an S3 endpoint that drops one request header: an S3-compatible
 * store that ignores {@code If-None-Match} (the target must not check signatures, see {@link
 * S3Proxy#inMemoryWithoutAuthentication()}). Requests are forwarded head by head, each body by its
 * Content-Length; responses are copied back as they come.
 */
public final class HeaderDroppingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final String dropped;
  private final AtomicInteger droppedCount = new AtomicInteger();

  public HeaderDroppingProxy(URI target, String droppedHeader) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = new InetSocketAddress(target.getHost(), target.getPort());
    this.dropped = droppedHeader.toLowerCase(Locale.ROOT) + ":";
    Thread accept = new Thread(this::acceptLoop, "header-dropping-proxy");
    accept.setDaemon(true);
    accept.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** How many requests had the header taken out. */
  public int dropped() {
    return droppedCount.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        daemon(() -> pumpRequests(client, upstream));
        daemon(() -> copy(upstream, client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pumpRequests(Socket client, Socket upstream) {
    try (client;
        upstream) {
      InputStream in = client.getInputStream();
      OutputStream out = upstream.getOutputStream();
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        StringBuilder kept = new StringBuilder();
        long length = 0;
        for (String line : head.split("\r\n", -1)) {
          String lower = line.toLowerCase(Locale.ROOT);
          if (lower.startsWith(dropped)) {
            droppedCount.incrementAndGet();
            continue;
          }
          if (lower.startsWith("content-length:")) {
            length = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
          }
          if (lower.startsWith("transfer-encoding:")) {
            throw new IOException("chunked request bodies are not supported by this test proxy");
          }
          kept.append(line).append("\r\n");
        }
        // The head ended with an empty line, which split() kept as the last element.
        kept.setLength(kept.length() - 2);
        out.write(kept.toString().getBytes(StandardCharsets.ISO_8859_1));
        byte[] buffer = new byte[8192];
        for (long left = length; left > 0; ) {
          int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
          if (n < 0) {
            return;
          }
          out.write(buffer, 0, n);
          left -= n;
        }
        out.flush();
      }
    } catch (IOException e) {
      // The client or the server closed the connection.
    }
  }

  /** The request line and headers up to and including the empty line; null at end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b = in.read(); b >= 0; b = in.read()) {
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
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
    Thread t = new Thread(r, "header-dropping-proxy-connection");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
