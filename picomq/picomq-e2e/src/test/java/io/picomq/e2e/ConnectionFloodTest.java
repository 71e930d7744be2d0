package io.picomq.e2e;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code pico serve} process with a small descriptor limit, flooded with three times as many
 * connections as it may hold: its automatic cap keeps it below the limit, a client admitted before
 * the flood goes on appending, and the admin listener answers {@code /health} throughout.
 */
class ConnectionFloodTest {
  private static final int DESCRIPTOR_LIMIT = 512;

  /** Three quarters of the limit less the admin listener's 64 (ConnectionSettings.protocolCap). */
  private static final int AUTOMATIC_CAP = DESCRIPTOR_LIMIT * 3 / 4 - 64;

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aFloodBeyondTheDescriptorLimitIsRefusedWhileClientsAndHealthAreServed() throws Exception {
    // Timeouts longer than the test: every flood connection keeps its place until closed here.
    try (ServerProcess server =
        ServerProcess.startWithDescriptorLimit(
            dir, DESCRIPTOR_LIMIT, "--header-timeout-sec", "120", "--idle-timeout-sec", "120")) {
      URI admin = server.adminEndpoint();
      assertThat(sample(admin, "process_files_max_files")).isEqualTo(DESCRIPTOR_LIMIT);
      assertThat(sample(admin, "picomq_http_connections_max{listener=\"pico\"}"))
          .isEqualTo(AUTOMATIC_CAP);

      List<Socket> sockets = new ArrayList<>();
      try {
        Socket client = connect(server, sockets);
        assertThat(
                request(
                    client, "PUT /flood HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"))
            .startsWith("HTTP/1.1 201");

        int flood = 3 * DESCRIPTOR_LIMIT;
        for (int i = 0; i < flood; i++) {
          connect(server, sockets);
        }
        int refused = flood + 1 - AUTOMATIC_CAP;
        await(
            () ->
                sample(
                        admin,
                        "picomq_http_connections_closed_total{listener=\"pico\",reason=\"refused\"}")
                    == refused,
            "every connection beyond the cap is refused");
        assertThat(sample(admin, "picomq_http_connections{listener=\"pico\"}"))
            .isEqualTo(AUTOMATIC_CAP);
        assertThat(sample(admin, "process_files_open_files")).isLessThan(DESCRIPTOR_LIMIT);

        assertThat(get(admin.resolve("/health")).statusCode()).isEqualTo(200);
        assertThat(
                request(
                    client,
                    "POST /flood HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi"))
            .startsWith("HTTP/1.1 20");
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }

      // The flood gone, new clients are admitted again.
      await(
          () -> sample(admin, "picomq_http_connections{listener=\"pico\"}") == 0,
          "the flood's places are released");
      assertThat(get(server.endpoint().resolve("/flood?seq=0")).body()).contains("hi");
      assertThat(server.output()).noneMatch(line -> line.contains("Too many open files"));
    }
  }

  private static Socket connect(ServerProcess server, List<Socket> sockets) throws IOException {
    Socket socket = new Socket(server.endpoint().getHost(), server.endpoint().getPort());
    sockets.add(socket);
    return socket;
  }

  /** Writes one request on a kept-alive connection and reads the response's head and body. */
  private static String request(Socket socket, String request) throws IOException {
    socket.setSoTimeout((int) DEADLINE.toMillis());
    socket.getOutputStream().write(request.getBytes(US_ASCII));
    socket.getOutputStream().flush();
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after: " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.regionMatches(true, 0, "content-length:", 0, "content-length:".length())) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return head + new String(in.readNBytes(length), UTF_8);
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(DEADLINE).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** One sample of the admin listener's {@code /metrics}, -1 when absent. */
  private double sample(URI admin, String series) {
    String metrics;
    try {
      metrics = get(admin.resolve("/metrics")).body();
    } catch (Exception e) {
      throw new AssertionError("cannot scrape /metrics", e);
    }
    return metrics
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElse(-1);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }
}
