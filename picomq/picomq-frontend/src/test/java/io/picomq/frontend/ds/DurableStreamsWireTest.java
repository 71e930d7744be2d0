package io.picomq.frontend.ds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.testing.WaitCountingService;
import io.picomq.stream.Expiry;
import io.picomq.stream.StreamService;
import io.picomq.stream.TrimOutcome;
import io.picomq.stream.testing.InMemoryStreamService;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Durable Streams behaviour over real sockets where the official suite is thin: pagination, names
 * and routes, waits that end (timeout, disconnect, shutdown), SSE over HTTP/2, trimmed and
 * impossible offsets, and byte-exact JSON.
 */
class DurableStreamsWireTest {

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private WaitCountingService service;
  private Frontend frontend;
  private URI base;

  @AfterEach
  void stop() {
    if (frontend != null) {
      frontend.close();
    }
  }

  private void start(Duration longPollTimeout, Duration sseMaxDuration, int maxChunkBytes)
      throws InterruptedException {
    InstantSource clock = InstantSource.system();
    service = new WaitCountingService(new InMemoryStreamService(clock));
    frontend =
        Frontend.start(
            FrontendConfig.builder()
                .port(0)
                .protocol(ListenerProtocol.DS)
                .longPollTimeout(longPollTimeout)
                .sseMaxDuration(sseMaxDuration)
                .maxChunkBytes(maxChunkBytes)
                .ioThreads(2)
                .build(),
            service,
            clock);
    base = URI.create("http://127.0.0.1:" + frontend.address().getPort());
  }

  private void start() throws InterruptedException {
    start(Duration.ofMillis(500), Duration.ofSeconds(3), 64 << 10);
  }

  @Test
  void catchUpPaginatesByChunkSizeAndResumesFromEachOffset() throws Exception {
    start(Duration.ofMillis(500), Duration.ofSeconds(3), 16);
    send("PUT", "/v1/stream/pages", "text/plain", "");
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      String chunk = "chunk-" + i + "...";
      expected.append(chunk);
      assertThat(send("POST", "/v1/stream/pages", "text/plain", chunk).statusCode()).isEqualTo(204);
    }
    StringBuilder got = new StringBuilder();
    String offset = "-1";
    Set<String> etags = new HashSet<>();
    int pages = 0;
    while (true) {
      HttpResponse<String> page = get("/v1/stream/pages?offset=" + offset);
      assertThat(page.statusCode()).isEqualTo(200);
      got.append(page.body());
      etags.add(page.headers().firstValue("etag").orElseThrow());
      pages++;
      offset = page.headers().firstValue("stream-next-offset").orElseThrow();
      if (page.headers().firstValue("stream-up-to-date").isPresent()) {
        assertThat(page.headers().firstValue("cache-control")).contains("no-cache");
        break;
      }
      assertThat(page.headers().firstValue("cache-control").orElseThrow()).startsWith("public");
    }
    assertThat(got.toString()).isEqualTo(expected.toString());
    assertThat(pages).isEqualTo(10);
    assertThat(etags).hasSize(10);
    assertThat(offset).isEqualTo("0000000000000000_0000000000000010");
  }

  @Test
  void badNamesRoutesAndMethodsGetJsonErrors() throws Exception {
    start();
    assertJsonError(get("/v1/stream/a//b"), 400, "invalid_stream_name");
    assertJsonError(get("/v1/stream/a/%2E%2E/b"), 400, "invalid_stream_name");
    assertJsonError(get("/v1/stream/" + "n".repeat(1100)), 400, "invalid_stream_name");
    assertJsonError(get("/elsewhere"), 404, "not_found");
    HttpResponse<String> patch = send("PATCH", "/v1/stream/a", "text/plain", "x");
    assertJsonError(patch, 405, "method_not_allowed");
    assertThat(patch.headers().firstValue("allow")).isPresent();
    assertJsonError(get("/v1/stream/missing"), 404, "stream_not_found");
    assertThat(get("/v1/stream/missing").headers().firstValue("x-content-type-options"))
        .contains("nosniff");
  }

  @Test
  void aLongPollAtTheTailTimesOutWith204() throws Exception {
    start();
    send("PUT", "/v1/stream/lp", "text/plain", "x");
    long begin = System.nanoTime();
    HttpResponse<String> response =
        get("/v1/stream/lp?offset=0000000000000000_0000000000000001&live=long-poll");
    assertThat(Duration.ofNanos(System.nanoTime() - begin))
        .isGreaterThanOrEqualTo(Duration.ofMillis(450));
    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(response.headers().firstValue("stream-cursor").orElseThrow()).matches("[0-9]+");
    assertThat(response.headers().firstValue("stream-up-to-date")).contains("true");
    awaitTrue(() -> service.pendingWaits() == 0);
  }

  @Test
  void clientsThatHangUpMidLongPollLeaveNoWaiters() throws Exception {
    start(Duration.ofSeconds(60), Duration.ofSeconds(60), 64 << 10);
    send("PUT", "/v1/stream/hangup", "text/plain", "");
    List<Socket> sockets = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 100; i++) {
        Socket socket = new Socket("127.0.0.1", base.getPort());
        OutputStream out = socket.getOutputStream();
        out.write(
            ("GET /v1/stream/hangup?offset=now&live=long-poll HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(UTF_8));
        out.flush();
        sockets.add(socket);
      }
      awaitTrue(() -> service.pendingWaits() == 100);
      for (Socket socket : sockets) {
        socket.close();
      }
      sockets.clear();
      awaitTrue(() -> service.pendingWaits() == 0);
    }
    // The stream still works for a waiter that stays.
    CompletableFuture<HttpResponse<String>> waiting =
        http.sendAsync(
            request("/v1/stream/hangup?offset=now&live=long-poll").build(),
            HttpResponse.BodyHandlers.ofString());
    awaitTrue(() -> service.pendingWaits() == 1);
    send("POST", "/v1/stream/hangup", "text/plain", "late");
    assertThat(waiting.get(5, TimeUnit.SECONDS).body()).isEqualTo("late");
  }

  @Test
  void shutdownAnswersParkedLongPollsAndEndsSse() throws Exception {
    start(Duration.ofSeconds(60), Duration.ofSeconds(60), 64 << 10);
    send("PUT", "/v1/stream/bye", "text/plain", "x");
    CompletableFuture<HttpResponse<String>> parked =
        http.sendAsync(
            request("/v1/stream/bye?offset=now&live=long-poll").build(),
            HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> sse =
        HttpClient.newHttpClient()
            .sendAsync(
                request("/v1/stream/bye?offset=-1&live=sse").build(),
                HttpResponse.BodyHandlers.ofString());
    awaitTrue(() -> service.pendingWaits() == 2);
    CompletableFuture<Void> stopped = frontend.shutdown(Duration.ofSeconds(5));
    assertThat(parked.get(3, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
    HttpResponse<String> ended = sse.get(3, TimeUnit.SECONDS);
    assertThat(ended.body()).contains("event: data\ndata:x").contains("\"upToDate\":true");
    stopped.get(5, TimeUnit.SECONDS);
    frontend = null;
  }

  @Test
  void sseWorksOverHttp2AndEndsAfterAClosedStreamIsDelivered() throws Exception {
    start();
    send("PUT", "/v1/stream/h2sse", "application/json", "[{\"n\":1},{\"n\":2}]");
    HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    // The first request upgrades the connection; SSE then runs as an HTTP/2 stream.
    assertThat(
            h2.send(request("/v1/stream/h2sse").build(), HttpResponse.BodyHandlers.ofString())
                .version())
        .isEqualTo(HttpClient.Version.HTTP_2);
    CompletableFuture<HttpResponse<InputStream>> live =
        h2.sendAsync(
            request("/v1/stream/h2sse?offset=-1&live=sse").build(),
            HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> response = live.get(5, TimeUnit.SECONDS);
    assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(response.headers().firstValue("content-type")).contains("text/event-stream");
    List<String> lines = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(response.body(), UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
        if (line.contains("\"upToDate\":true")) {
          send("POST", "/v1/stream/h2sse", "application/json", "{\"n\":3}");
          HttpRequest close =
              request("/v1/stream/h2sse")
                  .header("Stream-Closed", "true")
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build();
          http.send(close, HttpResponse.BodyHandlers.ofString());
        }
      }
    }
    assertThat(lines)
        .containsSubsequence(
            "event: data",
            "data:[{\"n\":1},{\"n\":2}]",
            "event: control",
            "event: data",
            "data:[{\"n\":3}]",
            "event: control",
            "data:{\"streamNextOffset\":\"0000000000000000_0000000000000003\",\"streamClosed\":true}");
  }

  @Test
  void sseDataEventsCarryExactlyTheRecordsFromEachReadersOffset() throws Exception {
    start();
    send("PUT", "/v1/stream/shared", "text/plain", "a");
    send("POST", "/v1/stream/shared", "text/plain", "b");
    send("POST", "/v1/stream/shared", "text/plain", "c");
    http.send(
        request("/v1/stream/shared")
            .header("Stream-Closed", "true")
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
    String closed =
        "event: control\n"
            + "data:{\"streamNextOffset\":\"0000000000000000_0000000000000003\",\"streamClosed\":true}"
            + "\n\n";
    // Data events are encoded once per node and shared: a reader must still get its own range.
    for (int round = 0; round < 2; round++) {
      assertThat(get("/v1/stream/shared?offset=-1&live=sse").body())
          .isEqualTo("event: data\ndata:abc\n\n" + closed);
      assertThat(get("/v1/stream/shared?offset=0000000000000000_0000000000000001&live=sse").body())
          .isEqualTo("event: data\ndata:bc\n\n" + closed);
      assertThat(get("/v1/stream/shared?offset=0000000000000000_0000000000000002&live=sse").body())
          .isEqualTo("event: data\ndata:c\n\n" + closed);
    }
  }

  @Test
  void sseResponsesEndAfterTheirMaximumDuration() throws Exception {
    start(Duration.ofMillis(300), Duration.ofSeconds(1), 64 << 10);
    send("PUT", "/v1/stream/recycle", "text/plain", "");
    long begin = System.nanoTime();
    HttpResponse<String> response = get("/v1/stream/recycle?offset=now&live=sse");
    Duration lasted = Duration.ofNanos(System.nanoTime() - begin);
    assertThat(lasted).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
    // Idle time is filled with control events, each with a cursor.
    assertThat(response.body().split("event: control", -1).length - 1).isGreaterThanOrEqualTo(2);
  }

  @Test
  void trimmedOffsetsAreGoneAndOffsetsPastTheTailAreRefused() throws Exception {
    start();
    send("PUT", "/v1/stream/trim", "text/plain", "a");
    send("POST", "/v1/stream/trim", "text/plain", "b");
    send("POST", "/v1/stream/trim", "text/plain", "c");
    StreamService inner = service;
    assertThat(inner.trim("/trim", 2).join()).isEqualTo(new TrimOutcome.Trimmed(2));
    assertJsonError(
        get("/v1/stream/trim?offset=0000000000000000_0000000000000001"), 410, "offset_trimmed");
    assertThat(get("/v1/stream/trim?offset=-1").body()).isEqualTo("c");
    assertJsonError(
        get("/v1/stream/trim?offset=0000000000000000_0000000000000009"), 400, "offset_beyond_tail");
  }

  @Test
  void jsonMessagesComeBackByteForByte() throws Exception {
    start();
    send("PUT", "/v1/stream/exact", "application/json", "");
    send(
        "POST",
        "/v1/stream/exact",
        "application/json",
        "[1.000000000000000000001, {\"k\" : \"\\u00e9\"}]");
    assertThat(get("/v1/stream/exact").body())
        .isEqualTo("[1.000000000000000000001,{\"k\" : \"\\u00e9\"}]");
    assertJsonError(
        send("POST", "/v1/stream/exact", "application/json", "[1,"), 400, "bad_request");
  }

  /** Finding F1 of issue 11: a TTL or expiry past the documented maximum is a 400, not a stream. */
  @Test
  void expiriesPastTheMaximumAreRefused() throws Exception {
    start();
    for (String[] header :
        List.of(
            new String[] {"Stream-TTL", "31556889864403199"},
            new String[] {"Stream-TTL", "999999999999999999"},
            new String[] {"Stream-TTL", Long.toString(Expiry.MAX_SECONDS + 1)},
            new String[] {"Stream-TTL", "-5"},
            new String[] {"Stream-Expires-At", "+999999999-12-31T23:59:59Z"},
            new String[] {"Stream-Expires-At", "2999-01-01T00:00:00Z"})) {
      HttpResponse<String> refused =
          http.send(
              request("/v1/stream/limits")
                  .header(header[0], header[1])
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertJsonError(refused, 400, "bad_request");
      assertThat(refused.body()).as(header[1]).contains(header[0]);
    }
    assertThat(get("/v1/stream/limits").statusCode()).isEqualTo(404);
    HttpResponse<String> longest =
        http.send(
            request("/v1/stream/limits")
                .header("Stream-TTL", Long.toString(Expiry.MAX_SECONDS))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(longest.statusCode()).isEqualTo(201);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private HttpRequest.Builder request(String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(20));
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return http.send(request(pathAndQuery).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String path, String contentType, String body)
      throws Exception {
    return http.send(
        request(path)
            .header("Content-Type", contentType)
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void assertJsonError(HttpResponse<String> response, int status, String error) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).contains("application/json");
    assertThat(response.body()).startsWith("{\"error\":\"" + error + "\"");
  }

  private static void awaitTrue(BooleanSupplier condition) {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(condition::getAsBoolean);
  }
}
