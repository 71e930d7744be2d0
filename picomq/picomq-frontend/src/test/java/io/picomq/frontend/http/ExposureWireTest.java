package io.picomq.frontend.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.HttpMethod;
import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.testing.InMemoryStreamService;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a listener answers to browsers and to foreign {@code Host} names, over real sockets: the
 * DNS-rebinding guard on HTTP/1.1 and HTTP/2, and CORS for both protocols.
 */
class ExposureWireTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private InMemoryStreamService service;
  private Frontend frontend;
  private URI base;

  @AfterEach
  void stop() {
    if (frontend != null) {
      frontend.close();
    }
  }

  private void start(FrontendConfig.Builder config) throws InterruptedException {
    service = new InMemoryStreamService(InstantSource.system());
    frontend = Frontend.start(config.port(0).ioThreads(1).build(), service, InstantSource.system());
    base = URI.create("http://127.0.0.1:" + frontend.address().getPort());
  }

  @Test
  void aForeignHostIsRefusedWith421AndChangesNothing() throws Exception {
    start(FrontendConfig.builder());
    int port = frontend.address().getPort();

    String refused = raw("PUT /rebound HTTP/1.1\r\nHost: evil.example:" + port + "\r\n");

    assertThat(refused).startsWith("HTTP/1.1 421 ");
    JsonNode error = body(refused);
    assertThat(error.path("error").asText()).isEqualTo("host_not_allowed");
    assertThat(error.path("message").asText())
        .contains("'evil.example:" + port + "'", "--allowed-hosts");
    assertThat(service.head("/rebound").join()).isInstanceOf(HeadOutcome.NotFound.class);

    assertThat(raw("PUT /mine HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"))
        .startsWith("HTTP/1.1 201 ");
    assertThat(raw("HEAD /mine HTTP/1.1\r\nHost: localhost\r\n")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void http2AuthorityCountsAsHost() throws Exception {
    start(FrontendConfig.builder());

    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(frontend.address())) {
      H2PriorKnowledgeClient.Response refused =
          client.send(HttpMethod.PUT, "/rebound", Map.of("host", "evil.example"), "");
      H2PriorKnowledgeClient.Response served =
          client.send(HttpMethod.PUT, "/mine", Map.of("host", "localhost:1"), "");

      assertThat(refused.status()).isEqualTo(421);
      assertThat(JSON.readTree(refused.body()).path("error").asText())
          .isEqualTo("host_not_allowed");
      assertThat(served.status()).isEqualTo(201);
    }
    assertThat(service.head("/rebound").join()).isInstanceOf(HeadOutcome.NotFound.class);
  }

  @Test
  void allowedHostsAddNamesAndAStarTurnsTheCheckOff() throws Exception {
    start(
        FrontendConfig.builder()
            .allowedHosts(AllowedHosts.forListener("127.0.0.1", List.of("pico.example.com"))));

    assertThat(raw("PUT /a HTTP/1.1\r\nHost: pico.example.com\r\n")).startsWith("HTTP/1.1 201 ");
    assertThat(raw("PUT /b HTTP/1.1\r\nHost: other.example.com\r\n")).startsWith("HTTP/1.1 421 ");
    frontend.close();

    start(
        FrontendConfig.builder().allowedHosts(AllowedHosts.forListener("127.0.0.1", List.of("*"))));
    assertThat(raw("PUT /c HTTP/1.1\r\nHost: other.example.com\r\n")).startsWith("HTTP/1.1 201 ");
  }

  @Test
  void durableStreamsPagesOfAConfiguredOriginMayCallAndOthersMayNot() throws Exception {
    String app = "https://app.example.com";
    start(
        FrontendConfig.builder()
            .protocol(ListenerProtocol.DS)
            .corsOrigins(AllowedOrigins.parse(app)));

    HttpResponse<String> allowed = preflight("/v1/stream/s", app);
    HttpResponse<String> local = preflight("/v1/stream/s", "http://localhost:5173");
    HttpResponse<String> created =
        send("PUT", "/v1/stream/s", Map.of("Origin", app, "Content-Type", "text/plain"));
    HttpResponse<String> foreign =
        send("GET", "/v1/stream/s", Map.of("Origin", "https://x.example"));

    assertThat(allowed.statusCode()).isEqualTo(204);
    assertThat(allowed.headers().firstValue("access-control-allow-origin")).contains(app);
    assertThat(allowed.headers().firstValue("access-control-allow-headers").orElseThrow())
        .contains("Stream-Seq", "Producer-Id");
    // Listed, not granted: without Access-Control-Allow-Origin the browser goes no further.
    assertThat(local.statusCode()).isEqualTo(204);
    assertThat(local.headers().firstValue("access-control-allow-origin")).isEmpty();
    assertThat(local.headers().firstValue("access-control-max-age")).isEmpty();
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.headers().firstValue("access-control-allow-origin")).contains(app);
    assertThat(created.headers().firstValue("access-control-expose-headers").orElseThrow())
        .contains("Stream-Next-Offset");
    assertThat(created.headers().allValues("vary")).contains("Origin");
    assertThat(foreign.statusCode()).isEqualTo(200);
    assertThat(foreign.headers().firstValue("access-control-allow-origin")).isEmpty();
    // Section 10.7 of the protocol, kept whatever the CORS setting.
    assertThat(foreign.headers().firstValue("x-content-type-options")).contains("nosniff");
    assertThat(foreign.headers().firstValue("cross-origin-resource-policy")).isPresent();
  }

  @Test
  void writesThatPagesOfForeignOriginsSendWithoutAPreflightAreRefused() throws Exception {
    start(FrontendConfig.builder());
    String own = "http://127.0.0.1:" + frontend.address().getPort();
    Map<String, String> textPlain = Map.of("Content-Type", "text/plain");

    // What <form method=post enctype=text/plain> or fetch(..., {mode: "no-cors"}) on another site
    // sends: no preflight, so CORS alone would let the append happen.
    HttpResponse<String> blind =
        send("PUT", "/blind", with(textPlain, "Origin", "https://evil.example"));
    HttpResponse<String> opaque = send("PUT", "/opaque", with(textPlain, "Origin", "null"));
    HttpResponse<String> local =
        send("PUT", "/local", with(textPlain, "Origin", "http://localhost:5173"));
    HttpResponse<String> sameOrigin = send("PUT", "/same", with(textPlain, "Origin", own));
    HttpResponse<String> read = send("GET", "/", Map.of("Origin", "https://evil.example"));

    assertThat(blind.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(blind.body()).path("error").asText()).isEqualTo("origin_not_allowed");
    assertThat(opaque.statusCode()).isEqualTo(403);
    assertThat(service.head("/blind").join()).isInstanceOf(HeadOutcome.NotFound.class);
    assertThat(service.head("/opaque").join()).isInstanceOf(HeadOutcome.NotFound.class);
    assertThat(local.statusCode()).isEqualTo(201);
    assertThat(sameOrigin.statusCode()).isEqualTo(201);
    // A read runs (its answer carries no allowance, so the page cannot see it).
    assertThat(read.statusCode()).isEqualTo(200);
  }

  @Test
  void starAllowsEveryOriginWithoutCredentialsAndNoneSendsNoCorsHeaders() throws Exception {
    start(FrontendConfig.builder().corsOrigins(AllowedOrigins.ANY));
    HttpResponse<String> any = preflight("/s", "https://x.example");
    HttpResponse<String> read = send("GET", "/", Map.of("Origin", "https://x.example"));

    assertThat(any.statusCode()).isEqualTo(204);
    assertThat(any.headers().firstValue("access-control-allow-origin")).contains("*");
    assertThat(any.headers().firstValue("access-control-allow-credentials")).isEmpty();
    assertThat(read.headers().firstValue("access-control-allow-origin")).contains("*");
    assertThat(read.headers().firstValue("vary")).isEmpty();
    frontend.close();

    start(FrontendConfig.builder().corsOrigins(AllowedOrigins.NONE));
    HttpResponse<String> local = preflight("/s", "http://localhost:5173");
    HttpResponse<String> listed = send("GET", "/", Map.of("Origin", "http://localhost:5173"));

    assertThat(local.statusCode()).isEqualTo(204);
    assertThat(local.headers().firstValue("access-control-allow-origin")).isEmpty();
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(listed.headers().map().keySet())
        .noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).startsWith("access-control-"));
    assertThat(listed.headers().firstValue("vary")).isEmpty();
  }

  private static Map<String, String> with(Map<String, String> headers, String name, String value) {
    Map<String, String> all = new java.util.HashMap<>(headers);
    all.put(name, value);
    return all;
  }

  private HttpResponse<String> preflight(String path, String origin) throws Exception {
    return send(
        "OPTIONS",
        path,
        Map.of(
            "Origin",
            origin,
            "Access-Control-Request-Method",
            "PUT",
            "Access-Control-Request-Headers",
            "content-type"));
  }

  private HttpResponse<String> send(String method, String path, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** One request written byte for byte (with {@code Connection: close}), the whole answer read. */
  private String raw(String head) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", frontend.address().getPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write((head + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), UTF_8);
    }
  }

  private static JsonNode body(String answer) throws Exception {
    return JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
  }
}
