package io.picomq.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A minimal HTTP/1.1 server on a real socket for scripted answers: one request per connection
 * ({@code Connection: close}), one connection at a time, bodies by {@code Content-Length} only.
 */
final class ScriptedHttpServer implements AutoCloseable {

  /** A request as received. */
  record Request(String method, String target, Map<String, String> headers, byte[] body) {}

  /** An answer: status, headers and a body (sent with its Content-Length). */
  record Answer(int status, Map<String, String> headers, byte[] body) {
    Answer(int status, Map<String, String> headers) {
      this(status, headers, new byte[0]);
    }
  }

  private final ServerSocket socket;
  private final Thread acceptor;

  ScriptedHttpServer(Function<Request, Answer> script) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (!socket.isClosed()) {
                    try (Socket connection = socket.accept()) {
                      serve(connection, script);
                    } catch (IOException e) {
                      // closed, or a client that went away
                    }
                  }
                });
  }

  URI base() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  private static void serve(Socket connection, Function<Request, Answer> script)
      throws IOException {
    InputStream in = connection.getInputStream();
    String requestLine = line(in);
    if (requestLine.isEmpty()) {
      return; // a connection closed before it sent a request
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      int colon = header.indexOf(':');
      headers.put(
          header.substring(0, colon).strip().toLowerCase(Locale.ROOT),
          header.substring(colon + 1).strip());
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    String[] parts = requestLine.split(" ");
    Answer answer = script.apply(new Request(parts[0], parts[1], headers, body));
    StringBuilder out = new StringBuilder("HTTP/1.1 " + answer.status() + " Scripted\r\n");
    answer
        .headers()
        .forEach((name, value) -> out.append(name).append(": ").append(value).append("\r\n"));
    boolean head = parts[0].equals("HEAD");
    out.append("Content-Length: ")
        .append(head ? 0 : answer.body().length)
        .append("\r\nConnection: close\r\n\r\n");
    OutputStream os = connection.getOutputStream();
    os.write(out.toString().getBytes(StandardCharsets.UTF_8));
    if (!head) {
      os.write(answer.body());
    }
    os.flush();
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    acceptor.interrupt();
  }
}
