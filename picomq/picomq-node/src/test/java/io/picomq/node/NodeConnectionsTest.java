package io.picomq.node;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.frontend.ListenerProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole node's connection limits over real sockets: a flood of the protocol listener is refused
 * at its cap while an admitted client keeps its answers and the admin listener answers {@code
 * /health}; slowloris connections are closed; a long-poll outlasting the idle timeout is answered;
 * {@code /metrics} reports descriptors and connections.
 */
class NodeConnectionsTest {
  private static final Duration SLACK = Duration.ofSeconds(5);

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ScheduledExecutorService drips = Executors.newSingleThreadScheduledExecutor();
  private final List<Socket> sockets = new ArrayList<>();
  private Node node;

  private void start(ConnectionSettings connections) throws Exception {
    node =
        Node.start(
            AdminApiTest.config(dir, 1, ListenerProtocol.PICO)
                .newBuilder()
                .connections(connections)
                .build(),
            Clock.systemUTC());
  }

  @AfterEach
  void stop() throws IOException {
    drips.shutdownNow();
    for (Socket socket : sockets) {
      socket.close();
    }
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  @Test
  void aFloodIsRefusedAtTheCapWhileAnAdmittedClientAndTheAdminListenerAnswer() throws Exception {
    int cap = 4;
    // Timeouts long enough that the flood holds its places for the whole test.
    start(
        new ConnectionSettings(
            Duration.ofSeconds(60), Duration.ofSeconds(60), OptionalInt.of(cap), 8));
    Socket client = connect();
    assertThat(exchange(client, "PUT", "/flood/s", "")).startsWith("HTTP/1.1 201");
    for (int i = 1; i < cap; i++) {
      connect();
    }
    await(
        () -> scrape("picomq_http_connections{listener=\"pico\"}") == cap,
        "the flood fills the cap");
    int refused = 40;
    for (int i = 0; i < refused; i++) {
      Socket extra = connect();
      extra.setSoTimeout((int) SLACK.toMillis());
      assertThat(new String(extra.getInputStream().readAllBytes(), UTF_8))
          .startsWith("HTTP/1.1 503 ")
          .contains("retry-after: 1")
          .contains("\"error\":\"too_many_connections\"");
    }

    // The admitted client appends and reads on; the admin listener has its own budget.
    assertThat(exchange(client, "POST", "/flood/s", "during")).startsWith("HTTP/1.1 20");
    assertThat(exchange(client, "GET", "/flood/s?seq=0", null)).contains("during");
    assertThat(get(admin("/health")).statusCode()).isEqualTo(200);

    String metrics = get(admin("/metrics")).body();
    assertThat(sample(metrics, "picomq_http_connections{listener=\"pico\"}")).isEqualTo(cap);
    assertThat(sample(metrics, "picomq_http_connections_max{listener=\"pico\"}")).isEqualTo(cap);
    assertThat(sample(metrics, "picomq_http_connections_max{listener=\"admin\"}")).isEqualTo(8);
    assertThat(sample(metrics, "picomq_http_connections{listener=\"admin\"}")).isBetween(1.0, 8.0);
    assertThat(
            sample(
                metrics,
                "picomq_http_connections_closed_total{listener=\"pico\",reason=\"refused\"}"))
        .isEqualTo(refused);
    // Every connection the test holds is a descriptor of this very process.
    assertThat(sample(metrics, "process_files_open_files")).isGreaterThan(2.0 * cap);
    assertThat(sample(metrics, "process_files_max_files"))
        .isGreaterThan(sample(metrics, "process_files_open_files"));
  }

  @Test
  void slowlorisConnectionsAreClosedAndALongPollOutlastingTheIdleTimeoutIsNot() throws Exception {
    Duration headerTimeout = Duration.ofMillis(500);
    Duration idleTimeout = Duration.ofMillis(800);
    // The node's long-poll timeout (AdminApiTest.config) is 2 s: longer than the idle timeout.
    start(new ConnectionSettings(headerTimeout, idleTimeout, OptionalInt.empty(), 8));
    int attackers = 50;
    List<Socket> slow = new ArrayList<>();
    long began = System.nanoTime();
    for (int i = 0; i < attackers; i++) {
      Socket socket = connect();
      drip(
          socket, "GET /slow/s?seq=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(10_000));
      slow.add(socket);
    }

    // Meanwhile a long-poll waits out its 2 s on an admitted connection and is answered 204.
    Socket poller = connect();
    assertThat(exchange(poller, "PUT", "/slow/s", "")).startsWith("HTTP/1.1 201");
    long polled = System.nanoTime();
    assertThat(exchange(poller, "GET", "/slow/s?seq=0&live=long-poll", null))
        .startsWith("HTTP/1.1 204");
    long answered = System.nanoTime();
    assertThat(Duration.ofNanos(answered - polled)).isGreaterThan(idleTimeout);

    for (Socket socket : slow) {
      assertThat(awaitClosedByServer(socket, began))
          .isBetween(headerTimeout, headerTimeout.plus(SLACK));
    }
    await(
        () ->
            scrape(
                    "picomq_http_connections_closed_total{listener=\"pico\",reason=\"header_timeout\"}")
                == attackers,
        "every slowloris connection counted");
    // The poller's connection then idles out like any other.
    assertThat(awaitClosedByServer(poller, answered))
        .isBetween(idleTimeout.minusMillis(100), idleTimeout.plus(SLACK));
  }

  // ---- helpers ------------------------------------------------------------------------------

  private String admin(String path) {
    return "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort() + path;
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(SLACK).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** One sample of the admin listener's {@code /metrics}, now. */
  private double scrape(String series) {
    try {
      return sample(get(admin("/metrics")).body(), series);
    } catch (Exception e) {
      throw new AssertionError("cannot scrape /metrics", e);
    }
  }

  /** The value of the sample line that starts with {@code series}, or -1 when there is none. */
  private static double sample(String metrics, String series) {
    return metrics
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElse(-1);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", node.address().getPort());
    sockets.add(socket);
    return socket;
  }

  /** One request on a kept-alive connection; answers the response's head and body. */
  private static String exchange(Socket socket, String method, String path, String body)
      throws IOException {
    socket.setSoTimeout((int) SLACK.toMillis());
    OutputStream out = socket.getOutputStream();
    byte[] content = body == null ? new byte[0] : body.getBytes(UTF_8);
    String head =
        method
            + " "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (body == null ? "" : "Content-Length: " + content.length + "\r\n")
            + "\r\n";
    out.write(head.getBytes(US_ASCII));
    out.write(content);
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder response = new StringBuilder();
    while (!response.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after: " + response);
      }
      response.append((char) b);
    }
    int length = 0;
    for (String line : response.toString().split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return response + new String(in.readNBytes(length), UTF_8);
  }

  /** Sends one byte of {@code text} every 50 ms until the text ends or the socket fails. */
  private void drip(Socket socket, String text) {
    byte[] bytes = text.getBytes(US_ASCII);
    int[] next = {0};
    drips.scheduleAtFixedRate(
        () -> {
          if (next[0] < bytes.length && !socket.isClosed()) {
            try {
              socket.getOutputStream().write(bytes[next[0]++]);
              socket.getOutputStream().flush();
            } catch (IOException closed) {
              next[0] = bytes.length;
            }
          }
        },
        0,
        50,
        TimeUnit.MILLISECONDS);
  }

  /** Waits for the server to close {@code socket}; answers how long after {@code sinceNanos}. */
  private static Duration awaitClosedByServer(Socket socket, long sinceNanos) throws IOException {
    socket.setSoTimeout((int) SLACK.multipliedBy(2).toMillis());
    try {
      while (socket.getInputStream().read() >= 0) {
        // Discards whatever the server still sent.
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server kept " + socket + " open", e);
    } catch (SocketException reset) {
      // Closed with our bytes unread: a reset, but closed all the same.
    }
    return elapsedSince(sinceNanos);
  }

  private static Duration elapsedSince(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + SLACK.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
