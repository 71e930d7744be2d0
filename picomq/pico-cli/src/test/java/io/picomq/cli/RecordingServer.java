package io.picomq.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A minimal HTTP/1.1 server on a real loopback socket that records each request and answers from a
 * script: what the CLI's verbs send, checked on the wire. One request per connection ({@code
 * Connection: close}), one connection at a time, bodies by {@code Content-Length} only.
 */
public final class RecordingServer implements AutoCloseable {

  /**
   * A request as received.
   *
   * @param target the path and query, as sent
   * @param headers by lower-case name
   */
  public record Request(String method, String target, Map<String, String> headers, String body) {
    /** The {@code Authorization} header, or null. */
    public String authorization() {
      return headers.get("authorization");
    }
  }

  /** An answer: status, headers and a body. */
  public record Answer(int status, Map<String, String> headers, String body) {
    public static Answer json(int status, String body) {
      return new Answer(status, Map.of("Content-Type", "application/json"), body);
    }
  }

  private final ServerSocket socket;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  public RecordingServer(Function<Request, Answer> script) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform()
        .daemon()
        .name("recording-server")
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

  public String base() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  /** Every request so far, in arrival order. */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  private void serve(Socket connection, Function<Request, Answer> script) throws IOException {
    InputStream in = connection.getInputStream();
    String requestLine = line(in);
    if (requestLine.isEmpty()) {
      return;
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      int colon = header.indexOf(':');
      headers.put(
          header.substring(0, colon).strip().toLowerCase(Locale.ROOT),
          header.substring(colon + 1).strip());
    }
    byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
    String[] parts = requestLine.split(" ");
    Request request =
        new Request(parts[0], parts[1], headers, new String(body, StandardCharsets.UTF_8));
    requests.add(request);
    Answer answer = script.apply(request);
    byte[] answerBody =
        parts[0].equals("HEAD") ? new byte[0] : answer.body().getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder("HTTP/1.1 " + answer.status() + " Scripted\r\n");
    answer
        .headers()
        .forEach((name, value) -> out.append(name).append(": ").append(value).append("\r\n"));
    if (answer.status() != 204) {
      out.append("Content-Length: ").append(answerBody.length).append("\r\n");
    }
    out.append("Connection: close\r\n\r\n");
    OutputStream os = connection.getOutputStream();
    os.write(out.toString().getBytes(StandardCharsets.UTF_8));
    if (answer.status() != 204) {
      os.write(answerBody);
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
  }
}
