package io.picomq.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * An HTTP/1.1 proxy on a real socket in front of a real {@code pico serve}, injecting {@code 503
 * Service Unavailable} on cue beside the real server: a request is passed through, refused without
 * reaching the server, or passed through with its answer replaced by a 503 (the server did the work
 * but the client hears "unavailable", as after a server-side timeout whose append still completed).
 * One request per connection ({@code Connection: close}); answers are buffered whole, so it is not
 * for SSE.
 */
public final class FaultProxy implements AutoCloseable {

  /** What the proxy does with one request. */
  public enum Fault {
    /** Forward it and relay the answer. */
    PASS,
    /** Answer 503 without forwarding it. */
    REFUSE,
    /** Forward it, drop the server's answer and answer 503. */
    LOSE_ANSWER
  }

  /** A request as received. */
  public record Request(String method, String target, Map<String, String> headers, byte[] body) {}

  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "content-length",
          "connection",
          "upgrade",
          "http2-settings",
          "expect",
          "te",
          "transfer-encoding",
          "keep-alive");

  private final URI upstream;
  private final Function<Request, Fault> script;
  private final String retryAfter;
  private final ServerSocket socket;
  private final HttpClient client;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong faults = new AtomicLong();

  /**
   * @param script decides each request's fault; called from many threads at once
   * @param retryAfter the {@code Retry-After} of every 503, in seconds
   */
  public FaultProxy(URI upstream, Function<Request, Fault> script, String retryAfter)
      throws IOException {
    this.upstream = upstream;
    this.script = script;
    this.retryAfter = retryAfter;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.socket = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("fault-proxy").start(this::accept);
  }

  /** Where clients connect. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /** Requests received so far. */
  public long requests() {
    return requests.get();
  }

  /** 503s answered so far. */
  public long faults() {
    return faults.get();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        Thread.ofVirtual()
            .start(
                () -> {
                  try (connection) {
                    serve(connection);
                  } catch (IOException | InterruptedException e) {
                    // a client that went away, or the proxy closing
                  }
                });
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void serve(Socket connection) throws IOException, InterruptedException {
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
    Request request = new Request(parts[0], parts[1], headers, body);
    requests.incrementAndGet();
    Fault fault = script.apply(request);
    OutputStream out = connection.getOutputStream();
    if (fault == Fault.REFUSE) {
      unavailable(out, request);
      return;
    }
    HttpResponse<byte[]> answer = forward(request);
    if (fault == Fault.LOSE_ANSWER) {
      unavailable(out, request);
      return;
    }
    StringBuilder head =
        new StringBuilder("HTTP/1.1 ").append(answer.statusCode()).append(" Proxied\r\n");
    answer
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                values.forEach(v -> head.append(name).append(": ").append(v).append("\r\n"));
              }
            });
    write(out, head, request.method().equals("HEAD") ? new byte[0] : answer.body());
  }

  private HttpResponse<byte[]> forward(Request request) throws IOException, InterruptedException {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(upstream.resolve(request.target())).timeout(Duration.ofSeconds(60));
    request
        .headers()
        .forEach(
            (name, value) -> {
              if (!NOT_FORWARDED.contains(name)) {
                builder.header(name, value);
              }
            });
    builder.method(
        request.method(),
        request.body().length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(request.body()));
    return client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private void unavailable(OutputStream out, Request request) throws IOException {
    faults.incrementAndGet();
    byte[] body =
        ("{\"error\":\"unavailable\",\"message\":\"injected by the test's proxy\"}")
            .getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder("HTTP/1.1 503 Service Unavailable\r\n")
            .append("Retry-After: ")
            .append(retryAfter)
            .append("\r\nContent-Type: application/json\r\n");
    write(out, head, request.method().equals("HEAD") ? new byte[0] : body);
  }

  private static void write(OutputStream out, StringBuilder head, byte[] body) throws IOException {
    head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.UTF_8));
    out.write(body);
    out.flush();
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

  /** A script that does the same to every request. */
  public static Function<Request, Fault> always(Fault fault) {
    return request -> fault;
  }

  @Override
  public void close() throws IOException {
    socket.close();
    client.shutdownNow();
  }
}
