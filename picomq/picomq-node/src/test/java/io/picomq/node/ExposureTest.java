package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.http.AllowedOrigins;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole node as a web page on the operator's machine would meet it, over real sockets: admin
 * writes a page could send without a preflight are refused, foreign {@code Host} names (DNS
 * rebinding) are refused on both listeners, and preflights are granted only to allowed origins.
 */
class ExposureTest {

  private static final int ANSWER_TIMEOUT_MILLIS = 10_000;

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private Node node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  private void start(NodeConfig.Builder config) throws Exception {
    node = Node.start(config.build(), Clock.systemUTC());
  }

  private NodeConfig.Builder config() {
    return AdminApiTest.config(dir, 1, ListenerProtocol.PICO).newBuilder();
  }

  @Test
  void adminWritesThatAreNotJsonAre415AndChangeNothing() throws Exception {
    start(config());
    String slots = admin("/admin/nodes/1");

    HttpResponse<String> plain = send("POST", slots, "text/plain", "{\"slots\":7}");
    HttpResponse<String> form =
        send("POST", slots, "application/x-www-form-urlencoded", "{\"slots\":7}");
    HttpResponse<String> untyped = send("POST", admin("/admin/rebalance"), null, "");
    HttpResponse<String> delete = send("DELETE", admin("/admin/nodes/1"), null, null);

    for (HttpResponse<String> refused : List.of(plain, form, untyped, delete)) {
      assertThat(refused.statusCode()).as("%s", refused).isEqualTo(415);
      JsonNode error = AdminHttp.json(refused);
      assertThat(error.path("error").asText()).isEqualTo("unsupported_media_type");
      assertThat(error.path("message").asText()).contains("application/json");
    }
    assertThat(AdminHttp.json(plain).path("message").asText()).contains("text/plain");
    assertThat(slotsOfNode1()).isEqualTo(1);

    HttpResponse<String> json =
        send("POST", slots, "application/json; charset=utf-8", "{\"slots\":7}");

    assertThat(json.statusCode()).isEqualTo(200);
    assertThat(slotsOfNode1()).isEqualTo(7);
  }

  @Test
  void adminWritesFromPagesOfOtherOriginsAreRefusedAndTheDashboardsPass() throws Exception {
    start(config());
    String slots = admin("/admin/nodes/1");
    String dashboard = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();

    HttpResponse<String> foreign =
        send("POST", slots, "application/json", "{\"slots\":7}", "https://evil.example");
    HttpResponse<String> local =
        send("POST", slots, "application/json", "{\"slots\":7}", "http://localhost:5173");

    for (HttpResponse<String> refused : List.of(foreign, local)) {
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(AdminHttp.json(refused).path("error").asText()).isEqualTo("origin_not_allowed");
      assertThat(AdminHttp.json(refused).path("message").asText()).contains("--admin-cors-origins");
    }
    assertThat(slotsOfNode1()).isEqualTo(1);
    assertThat(send("POST", slots, "application/json", "{\"slots\":5}", dashboard).statusCode())
        .isEqualTo(200);
    assertThat(slotsOfNode1()).isEqualTo(5);
  }

  @Test
  void bothListenersRefuseAForeignHostAndAnswerTheirOwn() throws Exception {
    start(config());
    InetSocketAddress data = node.address();
    InetSocketAddress admin = node.adminAddress().orElseThrow();

    RawRequest.Answer rebound = get("/", "evil.example:" + data.getPort()).send(data, timeout());
    RawRequest.Answer reboundAdmin =
        get("/admin/cluster", "evil.example:" + admin.getPort()).send(admin, timeout());

    for (RawRequest.Answer refused : List.of(rebound, reboundAdmin)) {
      assertThat(refused.status()).as(refused.text()).isEqualTo(421);
      assertThat(refused.text()).contains("\"error\":\"host_not_allowed\"", "--allowed-hosts");
    }
    assertThat(reboundAdmin.text()).doesNotContain("clusterId");
    assertThat(get("/", "127.0.0.1:" + data.getPort()).send(data, timeout()).status())
        .isEqualTo(200);
    assertThat(
            get("/admin/cluster", "localhost:" + admin.getPort()).send(admin, timeout()).status())
        .isEqualTo(200);
  }

  @Test
  void theAdvertisedHostAndAllowedHostsAreAnsweredOnBothListeners() throws Exception {
    start(
        config()
            .httpAddress("http://node1.pico.test:4437")
            .exposure(
                new ExposureSettings(
                    List.of("ops.example.com"), AllowedOrigins.LOOPBACK, AllowedOrigins.NONE)));
    InetSocketAddress data = node.address();
    InetSocketAddress admin = node.adminAddress().orElseThrow();

    for (InetSocketAddress listener : List.of(data, admin)) {
      String path = listener == data ? "/" : "/health";
      assertThat(get(path, "node1.pico.test:4437").send(listener, timeout()).status())
          .isEqualTo(200);
      assertThat(get(path, "ops.example.com").send(listener, timeout()).status()).isEqualTo(200);
      assertThat(get(path, "evil.example").send(listener, timeout()).status()).isEqualTo(421);
    }
  }

  @Test
  void preflightsAreGrantedOnlyToAllowedOrigins() throws Exception {
    start(config());
    String page = "http://localhost:5173";

    HttpResponse<String> dataLocal = preflight(data("/s"), page);
    HttpResponse<String> dataForeign = preflight(data("/s"), "https://evil.example");
    HttpResponse<String> adminLocal = preflight(admin("/admin/nodes/1"), page);

    assertThat(dataLocal.statusCode()).isEqualTo(204);
    assertThat(dataLocal.headers().firstValue("access-control-allow-origin")).contains(page);
    // Without Access-Control-Allow-Origin a browser sends nothing more.
    assertThat(dataForeign.headers().firstValue("access-control-allow-origin")).isEmpty();
    // The admin listener grants no origin by default, not even this machine's pages.
    assertThat(adminLocal.headers().firstValue("access-control-allow-origin")).isEmpty();
  }

  @Test
  void anAdminOriginMayBeAllowed() throws Exception {
    String ops = "https://ops.example.com";
    start(
        config()
            .exposure(
                new ExposureSettings(List.of(), AllowedOrigins.NONE, AllowedOrigins.parse(ops))));

    HttpResponse<String> granted = preflight(admin("/admin/nodes/1"), ops);
    HttpResponse<String> dataRefused = preflight(data("/s"), "http://localhost:5173");

    assertThat(granted.statusCode()).isEqualTo(204);
    assertThat(granted.headers().firstValue("access-control-allow-origin")).contains(ops);
    assertThat(granted.headers().firstValue("access-control-allow-methods"))
        .contains("GET, POST, PUT, DELETE");
    assertThat(dataRefused.headers().firstValue("access-control-allow-origin")).isEmpty();
  }

  private int slotsOfNode1() throws Exception {
    HttpResponse<String> nodes = send("GET", admin("/admin/nodes"), null, null);
    return AdminHttp.byNodeId(AdminHttp.json(nodes).path("nodes"), 1).path("slots").asInt();
  }

  private HttpResponse<String> preflight(String url, String origin) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String url, String contentType, String body)
      throws Exception {
    return send(method, url, contentType, body, null);
  }

  /** As a page of {@code origin} sends it (none when null: no browser). */
  private HttpResponse<String> send(
      String method, String url, String contentType, String body, String origin) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
    if (origin != null) {
      request.header("Origin", origin);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static RawRequest get(String target, String host) {
    return new RawRequest("GET", target, List.of(Map.entry("Host", host)), new byte[0]);
  }

  private static int timeout() {
    return ANSWER_TIMEOUT_MILLIS;
  }

  private String data(String path) {
    return "http://127.0.0.1:" + node.address().getPort() + path;
  }

  private String admin(String path) {
    return "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort() + path;
  }
}
