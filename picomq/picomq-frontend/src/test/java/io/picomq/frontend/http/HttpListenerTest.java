package io.picomq.frontend.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HttpListenerTest {

  private static final HttpLimits LIMITS = new HttpLimits(1024, 1024, 512);

  private HttpListener listener;
  private final HttpClient http1 =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final HttpClient http2 =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();

  @BeforeAll
  static void detectLeaks() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @AfterEach
  void stop() {
    if (listener != null) {
      listener.close();
    }
  }

  /** Echoes method, path, body, and whether it ran on a virtual thread. */
  private static void echo(Exchange exchange) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("x-method", exchange.method().name());
    headers.set("x-path", exchange.path());
    headers.set("x-virtual", Thread.currentThread().isVirtual());
    headers.set("x-http2", exchange.isHttp2());
    exchange.respond(HttpResponseStatus.OK, headers, exchange.body());
  }

  private URI start(RequestHandler handler) throws InterruptedException {
    listener =
        HttpListener.start(
            new HttpListener.Options(
                "127.0.0.1",
                0,
                LIMITS,
                Map.of("x-common", "yes"),
                1,
                128,
                ConnectionLimits.DEFAULT,
                AllowedHosts.forListener("127.0.0.1", List.of()),
                CorsPolicy.none("--cors-origins")),
            handler);
    return URI.create("http://127.0.0.1:" + listener.address().getPort());
  }

  @Test
  void http1RequestsRunOnVirtualThreads() throws Exception {
    URI base = start(HttpListenerTest::echo);
    HttpResponse<String> response =
        http1.send(
            HttpRequest.newBuilder(base.resolve("/a/b%20c?x=1"))
                .POST(HttpRequest.BodyPublishers.ofString("hello"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(response.body()).isEqualTo("hello");
    assertThat(response.headers().firstValue("x-path")).contains("/a/b c");
    assertThat(response.headers().firstValue("x-virtual")).contains("true");
    assertThat(response.headers().firstValue("x-common")).contains("yes");
  }

  @Test
  void h2cUpgradeServesHttp2OnTheSamePort() throws Exception {
    URI base = start(HttpListenerTest::echo);
    HttpResponse<String> get =
        http2.send(HttpRequest.newBuilder(base.resolve("/up")).build(), ofString());
    assertThat(get.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(get.headers().firstValue("x-http2")).contains("true");
    HttpResponse<String> post =
        http2.send(
            HttpRequest.newBuilder(base.resolve("/up"))
                .POST(HttpRequest.BodyPublishers.ofString("over h2"))
                .build(),
            ofString());
    assertThat(post.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(post.body()).isEqualTo("over h2");
  }

  @Test
  void priorKnowledgeHttp2IsServed() throws Exception {
    start(HttpListenerTest::echo);
    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      var response = client.send(HttpMethod.PUT, "/pk", Map.of(), "direct");
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("direct");
      assertThat(response.headers()).containsEntry("x-http2", "true");
      assertThat(response.headers()).containsEntry("x-method", "PUT");
      // A second stream on the same connection.
      assertThat(client.send(HttpMethod.GET, "/again", Map.of(), "").headers())
          .containsEntry("x-path", "/again");
    }
  }

  @Test
  void oversizedBodiesGet413WithAJsonError() throws Exception {
    URI base = start(HttpListenerTest::echo);
    HttpResponse<String> fixed =
        http1.send(
            HttpRequest.newBuilder(base.resolve("/big"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[1025]))
                .build(),
            ofString());
    assertJsonError(fixed, 413, "body_too_large");
    assertThat(fixed.headers().firstValue("x-common")).contains("yes");

    HttpResponse<String> chunked =
        http1.send(
            HttpRequest.newBuilder(base.resolve("/big"))
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(new byte[2000])))
                .build(),
            ofString());
    assertJsonError(chunked, 413, "body_too_large");

    HttpResponse<String> withinLimit =
        http1.send(
            HttpRequest.newBuilder(base.resolve("/ok"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[1024]))
                .build(),
            ofString());
    assertThat(withinLimit.statusCode()).isEqualTo(200);

    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      var response = client.send(HttpMethod.POST, "/big", Map.of(), "x".repeat(1500));
      assertThat(response.status()).isEqualTo(413);
      assertThat(response.body()).contains("\"error\":\"body_too_large\"");
    }
  }

  @Test
  void oversizedHeadersGet431WithAJsonError() throws Exception {
    URI base = start(HttpListenerTest::echo);
    HttpResponse<String> response =
        http1.send(
            HttpRequest.newBuilder(base.resolve("/h")).header("x-big", "v".repeat(1100)).build(),
            ofString());
    assertJsonError(response, 431, "headers_too_large");

    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      var h2 = client.send(HttpMethod.GET, "/h", Map.of("x-big", "v".repeat(1100)), "");
      assertThat(h2.status()).isEqualTo(431);
      assertThat(h2.body()).contains("\"error\":\"headers_too_large\"");
    }
  }

  /**
   * A client refused while still sending (here a head past the limit) reads the whole answer and
   * may finish writing: the server shuts its side and drops the rest instead of closing with unread
   * input, which would reset the connection under the client's feet. On the old close, the writes
   * after the answer met a reset.
   */
  @Test
  void aClientRefusedWhileStillSendingGetsTheAnswerAndNoReset() throws Exception {
    start(HttpListenerTest::echo);
    try (Socket socket = new Socket("127.0.0.1", listener.address().getPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET /h HTTP/1.1\r\nHost: 127.0.0.1\r\nx-big: " + "v".repeat(2000)).getBytes(UTF_8));
      out.flush();
      String answer = new String(socket.getInputStream().readAllBytes(), UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 431").contains("\"error\":\"headers_too_large\"");
      for (int i = 0; i < 256; i++) {
        out.write("v".repeat(1024).getBytes(UTF_8));
        out.flush();
      }
      socket.shutdownOutput();
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> listener.connections().open() == 0);
  }

  @Test
  void overlongRequestLinesGet414() throws Exception {
    URI base = start(HttpListenerTest::echo);
    HttpResponse<String> response =
        http1.send(HttpRequest.newBuilder(base.resolve("/" + "a".repeat(600))).build(), ofString());
    assertJsonError(response, 414, "uri_too_long");
  }

  @Test
  void malformedPercentEncodingGets400() throws Exception {
    URI base = start(HttpListenerTest::echo);
    String raw =
        rawExchange("GET /bad%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    assertThat(raw).startsWith("HTTP/1.1 400").contains("\"error\":\"bad_request\"");
  }

  @Test
  void aBodyRefusedBeforeItIsSentGets413WithAJsonError() throws Exception {
    start(HttpListenerTest::echo);
    String raw =
        rawExchange(
            "POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n"
                + "Expect: 100-continue\r\n\r\n");
    assertThat(raw)
        .startsWith("HTTP/1.1 413")
        .contains("application/json", "x-common: yes")
        .endsWith(
            "\"error\":\"body_too_large\",\"message\":\"the request body exceeds 1024 bytes\"}");

    String unknown =
        rawExchange(
            "POST /e HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nExpect: 200-ok\r\n\r\n");
    assertThat(unknown).startsWith("HTTP/1.1 417").contains("\"error\":\"expectation_failed\"");
  }

  @Test
  void aTargetThatIsNotUtf8OncePercentDecodedGets400() throws Exception {
    URI base = start(HttpListenerTest::echo);
    for (String target : List.of("/%ff%fe", "/%c0%af", "/a%ed%a0%80", "/%e2%82", "/q?x=%80")) {
      HttpResponse<String> response =
          http1.send(HttpRequest.newBuilder(base.resolve(target)).build(), ofString());
      assertThat(response.statusCode()).as(target).isEqualTo(400);
      assertThat(response.body()).as(target).contains("not UTF-8");
    }
    HttpResponse<String> utf8 =
        http1.send(HttpRequest.newBuilder(base.resolve("/%c3%a9?x=%e2%82%ac")).build(), ofString());
    assertThat(utf8.statusCode()).isEqualTo(200);
    assertThat(utf8.headers().firstValue("x-path")).contains("/\u00e9");
  }

  @Test
  void aFailingHandlerAnswers500() throws Exception {
    URI base =
        start(
            exchange -> {
              throw new IllegalStateException("boom");
            });
    HttpResponse<String> response =
        http1.send(HttpRequest.newBuilder(base.resolve("/x")).build(), ofString());
    assertJsonError(response, 500, "internal");
  }

  @Test
  void aNotModifiedAnswerKeepsTheConnectionAlive() throws Exception {
    start(
        exchange -> {
          if (exchange.path().equals("/cached")) {
            HttpHeaders headers = new DefaultHttpHeaders().set("etag", "\"v1\"");
            exchange.respond(HttpResponseStatus.NOT_MODIFIED, headers, new byte[0]);
          } else {
            echo(exchange);
          }
        });
    try (Socket socket = new Socket("127.0.0.1", listener.address().getPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      out.write(
          "GET /cached HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \"v1\"\r\n\r\n"
              .getBytes(UTF_8));
      out.flush();
      String notModified = readHead(in).toLowerCase(java.util.Locale.ROOT);
      assertThat(notModified).startsWith("http/1.1 304").contains("etag: \"v1\"");
      assertThat(notModified).doesNotContain("connection: close").doesNotContain("content-length");
      out.write(
          "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".getBytes(UTF_8));
      out.flush();
      String next = new String(in.readAllBytes(), UTF_8);
      assertThat(next).startsWith("HTTP/1.1 200").contains("x-path: /next");
    }
  }

  /** The status line and headers of one response, read up to the blank line. */
  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after: " + head);
      }
      head.append((char) b);
    }
    return head.toString();
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    start(
        exchange -> {
          if (exchange.path().equals("/slow")) {
            sleepQuietly(300);
          }
          echo(exchange);
        });
    String raw =
        rawExchange(
            "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    assertThat(raw.indexOf("x-path: /slow")).isPositive().isLessThan(raw.indexOf("x-path: /fast"));
  }

  @Test
  void shutdownDrainsInFlightRequestsAndInterruptsLiveOnes() throws Exception {
    CountDownLatch slowStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch liveStarted = new CountDownLatch(1);
    URI base =
        start(
            exchange -> {
              if (exchange.path().equals("/slow")) {
                slowStarted.countDown();
                awaitQuietly(release);
                echo(exchange);
              } else {
                liveStarted.countDown();
                exchange
                    .interrupted()
                    .thenRun(
                        () ->
                            exchange.respond(
                                HttpResponseStatus.NO_CONTENT,
                                new DefaultHttpHeaders(),
                                new byte[0]));
              }
            });
    CompletableFuture<HttpResponse<String>> slow =
        http1.sendAsync(HttpRequest.newBuilder(base.resolve("/slow")).build(), ofString());
    CompletableFuture<HttpResponse<String>> live =
        HttpClient.newHttpClient()
            .sendAsync(HttpRequest.newBuilder(base.resolve("/live")).build(), ofString());
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(liveStarted.await(5, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Void> stopped = listener.shutdown(Duration.ofSeconds(10));
    assertThat(live.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
    assertThat(stopped).isNotDone();
    assertThatThrownBy(() -> new Socket("127.0.0.1", base.getPort()).close())
        .isInstanceOf(ConnectException.class);

    release.countDown();
    HttpResponse<String> drained = slow.get(5, TimeUnit.SECONDS);
    assertThat(drained.statusCode()).isEqualTo(200);
    assertThat(drained.headers().firstValue("connection")).contains("close");
    stopped.get(5, TimeUnit.SECONDS);
    assertThat(listener.inFlight()).isZero();
  }

  @Test
  void shutdownGivesUpOnRequestsThatOutlastTheDrain() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    URI base =
        start(
            exchange -> {
              started.countDown();
              awaitQuietly(never);
            });
    CompletableFuture<HttpResponse<String>> stuck =
        http1.sendAsync(HttpRequest.newBuilder(base.resolve("/stuck")).build(), ofString());
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    long begin = System.nanoTime();
    listener.shutdown(Duration.ofMillis(300)).get(5, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - begin))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(stuck).failsWithin(5, TimeUnit.SECONDS);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static HttpResponse.BodyHandler<String> ofString() {
    return HttpResponse.BodyHandlers.ofString();
  }

  private static void assertJsonError(HttpResponse<String> response, int status, String error) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).contains("application/json");
    assertThat(response.body()).startsWith("{\"error\":\"" + error + "\",\"message\":\"");
  }

  private String rawExchange(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", listener.address().getPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), UTF_8);
    }
  }

  private static void sleepQuietly(long millis) {
    awaitQuietly(new CountDownLatch(1), millis);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    awaitQuietly(latch, 30_000);
  }

  private static void awaitQuietly(CountDownLatch latch, long millis) {
    try {
      latch.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
