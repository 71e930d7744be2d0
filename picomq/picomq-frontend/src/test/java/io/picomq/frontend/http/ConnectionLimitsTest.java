package io.picomq.frontend.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.http.ConnectionBudget.CloseReason;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Header timeout, idle timeout and the connection cap, over real sockets: slowloris connections are
 * closed, idle ones too while live responses are not, and a flood beyond the cap is refused while
 * admitted clients keep their answers. Timeouts are fractions of a second so the suite runs in
 * seconds; every wait is for an effect, with a deadline.
 */
class ConnectionLimitsTest {

  private static final Duration HEADER_TIMEOUT = Duration.ofMillis(500);
  private static final Duration IDLE_TIMEOUT = Duration.ofMillis(1000);

  /** Room for a loaded 2-core machine beyond a deadline the server should meet. */
  private static final Duration SLACK = Duration.ofSeconds(3);

  /** A live response lasts this long: well past the idle timeout. */
  private static final Duration LIVE = IDLE_TIMEOUT.multipliedBy(5).dividedBy(2);

  private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

  private final ScheduledExecutorService drips = Executors.newSingleThreadScheduledExecutor();
  private final List<Socket> sockets = new ArrayList<>();
  private HttpListener listener;

  @AfterEach
  void stop() throws IOException {
    drips.shutdownNow();
    for (Socket socket : sockets) {
      socket.close();
    }
    if (listener != null) {
      listener.close();
    }
  }

  /**
   * Echoes the path; {@code /poll} answers after {@link #LIVE}; {@code /sse} streams for as long.
   */
  private static void handle(Exchange exchange) {
    HttpHeaders headers = new DefaultHttpHeaders().set("x-path", exchange.path());
    switch (exchange.path()) {
      case "/poll" ->
          CompletableFuture.delayedExecutor(LIVE.toMillis(), TimeUnit.MILLISECONDS)
              .execute(
                  () -> exchange.respond(HttpResponseStatus.OK, headers, "late".getBytes(UTF_8)));
      case "/sse" -> {
        ResponseStream events =
            exchange.stream(
                HttpResponseStatus.OK, headers.set("content-type", "text/event-stream"));
        int count = 5;
        long everyMillis = LIVE.toMillis() / count;
        for (int i = 1; i <= count; i++) {
          boolean last = i == count;
          String event = "data: " + i + "\n\n";
          CompletableFuture.delayedExecutor(everyMillis * i, TimeUnit.MILLISECONDS)
              .execute(
                  () -> {
                    events.write(event.getBytes(UTF_8));
                    if (last) {
                      events.end();
                    }
                  });
        }
      }
      default -> exchange.respond(HttpResponseStatus.OK, headers, exchange.path().getBytes(UTF_8));
    }
  }

  private void start(ConnectionLimits connectionLimits) throws InterruptedException {
    listener =
        HttpListener.start(
            new HttpListener.Options(
                "127.0.0.1",
                0,
                HttpLimits.DEFAULT,
                Map.of(),
                1,
                128,
                connectionLimits,
                AllowedHosts.forListener("127.0.0.1", List.of()),
                CorsPolicy.none("--cors-origins")),
            ConnectionLimitsTest::handle);
  }

  private void start() throws InterruptedException {
    start(new ConnectionLimits(HEADER_TIMEOUT, IDLE_TIMEOUT, 100));
  }

  // ---- header timeout -----------------------------------------------------------------------

  @Test
  void aSilentConnectionIsClosedAfterTheHeaderTimeout() throws Exception {
    start();
    long began = System.nanoTime();
    Socket silent = connect();
    Duration lived = awaitClosedByServer(silent, began);
    assertThat(lived).isBetween(HEADER_TIMEOUT, HEADER_TIMEOUT.plus(SLACK));
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isEqualTo(1);
    await(() -> listener.connections().open() == 0, "the closed connection released its place");
  }

  @Test
  void slowlorisHeadersAreClosedAfterTheHeaderTimeoutWhileBytesKeepComing() throws Exception {
    start();
    int attackers = 20;
    List<Socket> dripping = new ArrayList<>();
    long began = System.nanoTime();
    for (int i = 0; i < attackers; i++) {
      Socket socket = connect();
      drip(socket, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(10_000));
      dripping.add(socket);
    }
    for (Socket socket : dripping) {
      assertThat(awaitClosedByServer(socket, began))
          .isBetween(HEADER_TIMEOUT, HEADER_TIMEOUT.plus(SLACK));
    }
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isEqualTo(attackers);
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isZero();
  }

  @Test
  void theNextRequestOnAKeepAliveConnectionHasItsOwnHeaderTimeout() throws Exception {
    // An idle timeout long enough that only the header timeout can close the connection here.
    start(new ConnectionLimits(HEADER_TIMEOUT, Duration.ofSeconds(30), 100));
    Socket socket = connect();
    assertThat(exchange(socket, "/first")).endsWith("/first");
    // Each later request is answered, though the connection lives well past the header timeout:
    // the timeout counts from a request's first byte, not from the accept.
    for (int i = 0; i < 3; i++) {
      long idleFrom = System.nanoTime();
      await(() -> elapsedSince(idleFrom).compareTo(HEADER_TIMEOUT) > 0, "an idle spell passes");
      assertThat(exchange(socket, "/k" + i)).endsWith("/k" + i);
    }
    long began = System.nanoTime();
    drip(socket, "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(10_000));
    assertThat(awaitClosedByServer(socket, began))
        .isBetween(HEADER_TIMEOUT, HEADER_TIMEOUT.plus(SLACK));
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isEqualTo(1);
  }

  @Test
  void aTrickledHttp2PrefaceIsClosedAfterTheHeaderTimeout() throws Exception {
    start();
    long began = System.nanoTime();
    Socket socket = connect();
    drip(socket, PREFACE);
    assertThat(awaitClosedByServer(socket, began))
        .isBetween(HEADER_TIMEOUT, HEADER_TIMEOUT.plus(SLACK));
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isEqualTo(1);
  }

  @Test
  void anHttp2ConnectionThatNeverSendsARequestIsClosedAfterTheHeaderTimeout() throws Exception {
    start();
    long began = System.nanoTime();
    Socket socket = connect();
    // The whole preface and an empty SETTINGS frame, then nothing.
    socket.getOutputStream().write(PREFACE.getBytes(US_ASCII));
    socket.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
    socket.getOutputStream().flush();
    assertThat(awaitClosedByServer(socket, began))
        .isBetween(HEADER_TIMEOUT, HEADER_TIMEOUT.plus(SLACK));
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isEqualTo(1);
  }

  // ---- idle timeout -------------------------------------------------------------------------

  @Test
  void anIdleHttp1ConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    start();
    Socket socket = connect();
    socket
        .getOutputStream()
        .write("GET /once HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(US_ASCII));
    assertThat(readResponse(socket.getInputStream())).startsWith("HTTP/1.1 200");
    long answered = System.nanoTime();
    assertThat(awaitClosedByServer(socket, answered))
        .isBetween(IDLE_TIMEOUT.minusMillis(100), IDLE_TIMEOUT.plus(SLACK));
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isEqualTo(1);
    assertThat(listener.connections().closed(CloseReason.HEADER_TIMEOUT)).isZero();
  }

  @Test
  void anIdleHttp2PriorKnowledgeConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    start();
    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      assertThat(client.send(HttpMethod.GET, "/h2", Map.of(), "").status()).isEqualTo(200);
      long answered = System.nanoTime();
      await(() -> !client.isOpen(), "the server closes the idle HTTP/2 connection");
      assertThat(elapsedSince(answered)).isGreaterThanOrEqualTo(IDLE_TIMEOUT.minusMillis(100));
    }
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isEqualTo(1);
  }

  @Test
  void anIdleH2cUpgradedConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    start();
    HttpClient http2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    HttpResponse<String> response = http2.send(get("/up"), HttpResponse.BodyHandlers.ofString());
    assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
    long answered = System.nanoTime();
    await(() -> listener.connections().open() == 0, "the server closes the idle connection");
    assertThat(elapsedSince(answered)).isGreaterThanOrEqualTo(IDLE_TIMEOUT.minusMillis(100));
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isEqualTo(1);
  }

  @Test
  void aLongPollThatOutlastsTheIdleTimeoutIsAnsweredOnEveryProtocol() throws Exception {
    start();
    // HTTP/1.1, and the connection is still there for the next request.
    try (Socket socket = connect()) {
      assertThat(exchange(socket, "/poll")).endsWith("late");
      assertThat(exchange(socket, "/after")).endsWith("/after");
    }
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isZero();

    // HTTP/2 by upgrade: the poll is the upgrade request itself, answered as stream 1. Closing the
    // client closes its connection, so no idle connection is left to be counted below.
    try (HttpClient http2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
      HttpResponse<String> upgraded =
          http2.send(get("/poll"), HttpResponse.BodyHandlers.ofString());
      assertThat(upgraded.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(upgraded.body()).isEqualTo("late");
      assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isZero();
    }

    // HTTP/2 with prior knowledge.
    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      assertThat(client.send(HttpMethod.GET, "/poll", Map.of(), "").body()).isEqualTo("late");
      assertThat(client.isOpen()).isTrue();
      assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isZero();
    }
  }

  @Test
  void anSseResponseThatOutlastsTheIdleTimeoutIsNotCut() throws Exception {
    start();
    Socket socket = connect();
    socket
        .getOutputStream()
        .write("GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(US_ASCII));
    socket.getOutputStream().flush();
    long began = System.nanoTime();
    String body = readChunkedResponse(socket.getInputStream());
    assertThat(elapsedSince(began)).isGreaterThan(IDLE_TIMEOUT);
    assertThat(body).contains("data: 1\n\n", "data: 5\n\n");
    assertThat(listener.connections().closed(CloseReason.IDLE_TIMEOUT)).isZero();
  }

  // ---- the cap ------------------------------------------------------------------------------

  @Test
  void aFloodBeyondTheCapIsRefusedWhileAdmittedClientsAreServed() throws Exception {
    int cap = 5;
    // Timeouts long enough that the flood holds its places for the whole test.
    start(new ConnectionLimits(Duration.ofSeconds(30), Duration.ofSeconds(30), cap));
    Socket client = connect();
    assertThat(exchange(client, "/before")).endsWith("/before");
    for (int i = 1; i < cap; i++) {
      connect();
    }
    await(() -> listener.connections().open() == cap, "the flood fills the cap");

    int refused = 50;
    for (int i = 0; i < refused; i++) {
      long began = System.nanoTime();
      Socket extra = connect();
      extra.setSoTimeout((int) SLACK.toMillis());
      String answer = new String(extra.getInputStream().readAllBytes(), US_ASCII);
      assertThat(answer)
          .startsWith("HTTP/1.1 503 Service Unavailable\r\n")
          .contains("retry-after: 1\r\n", "connection: close\r\n")
          .endsWith("\"error\":\"too_many_connections\",\"message\":" + quotedMessage(cap) + "}");
      assertThat(elapsedSince(began)).isLessThan(SLACK);
      assertThat(listener.connections().open()).isEqualTo(cap);
    }
    assertThat(listener.connections().closed(CloseReason.REFUSED)).isEqualTo(refused);
    // The admitted client is still served over its connection.
    assertThat(exchange(client, "/during")).endsWith("/during");

    // Once a place is free, a new connection is admitted again.
    client.close();
    await(() -> listener.connections().open() == cap - 1, "the client's place is released");
    assertThat(exchange(connect(), "/after")).endsWith("/after");
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static String quotedMessage(int cap) {
    return "\"the server holds its maximum of " + cap + " connections; retry shortly\"";
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", listener.address().getPort());
    sockets.add(socket);
    return socket;
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + listener.address().getPort() + path))
        .build();
  }

  /** Sends one byte of {@code text} every 50 ms until the text ends or the socket fails. */
  private void drip(Socket socket, String text) {
    byte[] bytes = text.getBytes(US_ASCII);
    int[] next = {0};
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    var task =
        drips.scheduleAtFixedRate(
            () -> {
              if (stopped.isDone() || next[0] == bytes.length) {
                stopped.complete(null);
                return;
              }
              try {
                socket.getOutputStream().write(bytes[next[0]++]);
                socket.getOutputStream().flush();
              } catch (IOException closed) {
                stopped.complete(null);
              }
            },
            0,
            50,
            TimeUnit.MILLISECONDS);
    stopped.thenRun(() -> task.cancel(false));
  }

  /**
   * Waits for the server to close {@code socket} (end of stream, or a reset when it closed with our
   * bytes unread) and answers how long after {@code sinceNanos} that was.
   */
  private static Duration awaitClosedByServer(Socket socket, long sinceNanos) throws IOException {
    socket.setSoTimeout((int) HEADER_TIMEOUT.plus(IDLE_TIMEOUT).plus(SLACK).toMillis());
    InputStream in = socket.getInputStream();
    try {
      while (in.read() >= 0) {
        // Discards whatever the server still sent.
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server kept " + socket + " open", e);
    } catch (SocketException reset) {
      // Closed with unread input: the kernel answers with a reset. Closed all the same.
    }
    return elapsedSince(sinceNanos);
  }

  private static String exchange(Socket socket, String path) throws IOException {
    socket.setSoTimeout((int) LIVE.plus(SLACK).toMillis());
    OutputStream out = socket.getOutputStream();
    out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(US_ASCII));
    out.flush();
    String response = readResponse(socket.getInputStream());
    assertThat(response).startsWith("HTTP/1.1 200");
    return response;
  }

  /** One response with a Content-Length: head and body. */
  private static String readResponse(InputStream in) throws IOException {
    String head = readHead(in);
    int length = 0;
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return head + new String(in.readNBytes(length), UTF_8);
  }

  /** The body of one chunked response, chunk by chunk up to the last (empty) one. */
  private static String readChunkedResponse(InputStream in) throws IOException {
    assertThat(readHead(in)).startsWith("HTTP/1.1 200");
    StringBuilder body = new StringBuilder();
    while (true) {
      String sizeLine = readLine(in);
      int size = Integer.parseInt(sizeLine.trim(), 16);
      if (size == 0) {
        readLine(in);
        return body.toString();
      }
      body.append(new String(in.readNBytes(size), UTF_8));
      readLine(in);
    }
  }

  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      head.append(readLine(in)).append("\r\n");
    }
    return head.toString();
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after: " + line);
      }
      if (b == '\n' && !line.isEmpty() && line.charAt(line.length() - 1) == '\r') {
        line.setLength(line.length() - 1);
        return line.toString();
      }
      line.append((char) b);
    }
  }

  private static Duration elapsedSince(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + IDLE_TIMEOUT.plus(SLACK).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
