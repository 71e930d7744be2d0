package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.access.Audience;
import io.picomq.frontend.access.PresentedToken;
import io.picomq.frontend.access.Verb;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The authorization matrix: every endpoint of the Pico protocol, the Durable Streams protocol and
 * the admin API, times every kind of credential, with the exact status each must get. One real node
 * per protocol, access control on, real sockets.
 *
 * <p>Rows (credentials): none, malformed, a wrong secret, an unknown id, expired, revoked: 401 with
 * {@code WWW-Authenticate}; a token narrower than the request on its stream, its verb or its
 * audience: 403; a token holding exactly the endpoint's verbs on {@code m/*} for its listener: the
 * endpoint's own success. Open endpoints ({@code /health}, {@code /ready}) answer everyone. Admin
 * verbs act on the cluster, so a token for other streams may use them, except where the request
 * gives away or takes back a scope over streams (issue, revoke).
 */
class AccessMatrixTest {

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String root = PresentedToken.generate(new SecureRandom()).reveal();
  private Node node;
  private String data;
  private String admin;

  /** One endpoint: a request, what it needs, and what it answers when allowed. */
  record Endpoint(
      String name,
      Audience audience,
      String method,
      String path,
      Map<String, String> headers,
      String body,
      Set<Verb> verbs,
      boolean scopeOverStreams,
      int success) {

    boolean open() {
      return verbs.isEmpty();
    }
  }

  /** A credential row: how to make its Authorization header for an endpoint. */
  record Row(String name, java.util.function.Function<Endpoint, Optional<String>> header) {}

  @AfterEach
  void stop() {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  @TestFactory
  Stream<DynamicTest> picoAndAdmin() throws Exception {
    start(ListenerProtocol.PICO);
    for (String name : List.of("append", "close", "trim", "read", "head", "delete")) {
      assertThat(rooted("PUT", data + "/m/" + name, Map.of("Content-Type", "text/plain"), "a"))
          .isEqualTo(201);
    }
    rooted("POST", data + "/m/trim", Map.of("Content-Type", "text/plain"), "b");
    List<Endpoint> endpoints = new ArrayList<>();
    endpoints.add(pico("list", "GET", "/?prefix=/m/", Map.of(), null, Verb.LIST, 200));
    endpoints.add(
        pico(
            "create",
            "PUT",
            "/m/created",
            Map.of("Content-Type", "text/plain"),
            null,
            Verb.CREATE,
            201));
    endpoints.add(
        pico(
            "append",
            "POST",
            "/m/append",
            Map.of("Content-Type", "text/plain"),
            "c",
            Verb.APPEND,
            200));
    endpoints.add(
        pico("close", "POST", "/m/close", Map.of("Pico-Closed", "true"), null, Verb.CLOSE, 200));
    endpoints.add(
        pico("trim", "POST", "/m/trim", Map.of("Pico-Trim-Seq", "1"), null, Verb.TRIM, 200));
    endpoints.add(pico("read", "GET", "/m/read?seq=0", Map.of(), null, Verb.READ, 200));
    endpoints.add(
        pico(
            "read long-poll",
            "GET",
            "/m/read?seq=now&live=long-poll",
            Map.of(),
            null,
            Verb.READ,
            204));
    endpoints.add(
        pico("read sse", "GET", "/m/read?seq=0&live=sse", Map.of(), null, Verb.READ, 200));
    endpoints.add(pico("head", "HEAD", "/m/head", Map.of(), null, Verb.HEAD, 200));
    endpoints.add(pico("delete", "DELETE", "/m/delete", Map.of(), null, Verb.DELETE, 204));
    endpoints.addAll(adminEndpoints());
    return matrix(endpoints);
  }

  @TestFactory
  Stream<DynamicTest> durableStreams() throws Exception {
    start(ListenerProtocol.DS);
    for (String name : List.of("append", "close", "read", "head", "delete", "src")) {
      assertThat(
              rooted(
                  "PUT", data + "/v1/stream/m/" + name, Map.of("Content-Type", "text/plain"), "a"))
          .isEqualTo(201);
    }
    List<Endpoint> endpoints = new ArrayList<>();
    endpoints.add(
        ds(
            "create",
            "PUT",
            "/m/created",
            Map.of("Content-Type", "text/plain"),
            null,
            Set.of(Verb.CREATE),
            201));
    endpoints.add(
        ds(
            "append",
            "POST",
            "/m/append",
            Map.of("Content-Type", "text/plain"),
            "c",
            Set.of(Verb.APPEND),
            204));
    endpoints.add(
        ds(
            "close",
            "POST",
            "/m/close",
            Map.of("Stream-Closed", "true"),
            null,
            Set.of(Verb.CLOSE),
            204));
    endpoints.add(ds("read", "GET", "/m/read?offset=-1", Map.of(), null, Set.of(Verb.READ), 200));
    endpoints.add(
        ds(
            "read long-poll",
            "GET",
            "/m/read?offset=now&live=long-poll",
            Map.of(),
            null,
            Set.of(Verb.READ),
            204));
    endpoints.add(ds("head", "HEAD", "/m/head", Map.of(), null, Set.of(Verb.HEAD), 200));
    endpoints.add(ds("delete", "DELETE", "/m/delete", Map.of(), null, Set.of(Verb.DELETE), 204));
    endpoints.add(
        ds(
            "fork",
            "PUT",
            "/m/forked",
            Map.of("Stream-Forked-From", "/v1/stream/m/src"),
            null,
            Set.of(Verb.FORK, Verb.READ),
            201));
    return matrix(endpoints);
  }

  private void start(ListenerProtocol protocol) throws Exception {
    NodeConfig config =
        AdminApiTest.config(dir, 1, protocol)
            .newBuilder()
            .access(AccessTestSupport.on(root))
            .build();
    node = Node.start(config, Clock.systemUTC());
    data = "http://127.0.0.1:" + node.address().getPort();
    admin = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
  }

  private List<Endpoint> adminEndpoints() throws Exception {
    String victim =
        issue(root, scope("m/*", List.of("tokens"), List.of("admin"), null)).path("id").asText();
    String narrow = scope("m/*", List.of("tokens"), List.of("admin"), null);
    return List.of(
        adminEndpoint("health", "GET", "/health", null, Set.of(), false, 200),
        adminEndpoint("ready", "GET", "/ready", null, Set.of(), false, 200),
        adminEndpoint("metrics", "GET", "/metrics", null, Set.of(Verb.ADMIN_READ), false, 200),
        adminEndpoint(
            "cluster", "GET", "/admin/cluster", null, Set.of(Verb.ADMIN_READ), false, 200),
        adminEndpoint(
            "slots",
            "POST",
            "/admin/nodes/1",
            "{\"slots\":1}",
            Set.of(Verb.ADMIN_WRITE),
            false,
            200),
        adminEndpoint("token list", "GET", "/admin/tokens", null, Set.of(Verb.TOKENS), false, 200),
        adminEndpoint(
            "token issue",
            "POST",
            "/admin/tokens",
            "{\"scope\":" + narrow + "}",
            Set.of(Verb.TOKENS),
            true,
            201),
        adminEndpoint(
            "token revoke",
            "DELETE",
            "/admin/tokens/" + victim,
            null,
            Set.of(Verb.TOKENS),
            true,
            204),
        adminEndpoint(
            "anonymous", "GET", "/admin/anonymous", null, Set.of(Verb.TOKENS), false, 200));
  }

  private Stream<DynamicTest> matrix(List<Endpoint> endpoints) throws Exception {
    String expiring =
        token(scope("m/*", List.of("all"), allAudiences(), Instant.now().plusSeconds(2)));
    String any = token(scope("m/*", List.of("all"), allAudiences(), null));
    String revoked = token(scope("m/*", List.of("all"), allAudiences(), null));
    assertThat(
            send(
                    "DELETE",
                    admin + "/admin/tokens/" + revoked.substring(0, 12),
                    root,
                    Map.of("Content-Type", "application/json"),
                    null)
                .statusCode())
        .isEqualTo(204);
    String otherStreams = token(scope("other/*", List.of("all"), allAudiences(), null));
    Map<Endpoint, String> wrongVerb = new LinkedHashMap<>();
    Map<Endpoint, String> wrongAudience = new LinkedHashMap<>();
    Map<Endpoint, String> sufficient = new LinkedHashMap<>();
    for (Endpoint endpoint : endpoints) {
      EnumSet<Verb> others =
          EnumSet.complementOf(
              EnumSet.copyOf(endpoint.open() ? EnumSet.of(Verb.LIST) : endpoint.verbs()));
      if (!others.contains(Verb.LIST) || !others.contains(Verb.HEAD)) {
        // "read" in a scope is the group (list, head, read): it cannot be left out of only one.
        others.remove(Verb.READ);
      }
      wrongVerb.put(endpoint, token(scope("m/*", names(others), allAudiences(), null)));
      EnumSet<Audience> otherListeners = EnumSet.complementOf(EnumSet.of(endpoint.audience()));
      wrongAudience.put(
          endpoint,
          token(
              scope(
                  "m/*",
                  List.of("all"),
                  otherListeners.stream().map(Audience::wireName).toList(),
                  null)));
      sufficient.put(
          endpoint,
          token(
              scope(
                  "m/*",
                  endpoint.open() ? List.of("list") : names(endpoint.verbs()),
                  List.of(endpoint.audience().wireName()),
                  null)));
    }
    await("the expiring token expires")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                send("GET", admin + "/admin/cluster", expiring, Map.of(), null).statusCode()
                    == 401);

    String unknownId = (any.charAt(0) == 'A' ? "B" : "A") + any.substring(1);
    String wrongSecret =
        any.substring(0, 20) + (any.charAt(20) == 'A' ? 'B' : 'A') + any.substring(21);
    List<Row> rows =
        List.of(
            new Row("no token", e -> Optional.empty()),
            new Row("malformed", e -> Optional.of("Bearer not-a-token")),
            new Row("not bearer", e -> Optional.of("Basic " + any)),
            new Row("wrong secret", e -> Optional.of("Bearer " + wrongSecret)),
            new Row("unknown id", e -> Optional.of("Bearer " + unknownId)),
            new Row("expired", e -> Optional.of("Bearer " + expiring)),
            new Row("revoked", e -> Optional.of("Bearer " + revoked)),
            new Row("narrower: other streams", e -> Optional.of("Bearer " + otherStreams)),
            new Row("narrower: other verbs", e -> Optional.of("Bearer " + wrongVerb.get(e))),
            new Row(
                "narrower: other listeners", e -> Optional.of("Bearer " + wrongAudience.get(e))),
            new Row("sufficient", e -> Optional.of("Bearer " + sufficient.get(e))));
    List<DynamicTest> tests = new ArrayList<>();
    for (Endpoint endpoint : endpoints) {
      for (Row row : rows) {
        int expected = expected(endpoint, row.name());
        tests.add(
            dynamicTest(
                endpoint.audience().wireName()
                    + " "
                    + endpoint.name()
                    + " ("
                    + endpoint.method()
                    + " "
                    + endpoint.path()
                    + ") × "
                    + row.name()
                    + " → "
                    + expected,
                () -> check(endpoint, row, expected)));
      }
    }
    return tests.stream();
  }

  /** The matrix itself: the status each credential row gets at an endpoint. */
  private static int expected(Endpoint endpoint, String row) {
    if (endpoint.open()) {
      return endpoint.success();
    }
    return switch (row) {
      case "no token",
          "malformed",
          "not bearer",
          "wrong secret",
          "unknown id",
          "expired",
          "revoked" ->
          401;
      case "narrower: other streams" ->
          endpoint.audience() != Audience.ADMIN || endpoint.scopeOverStreams()
              ? 403
              : endpoint.success();
      case "narrower: other verbs", "narrower: other listeners" -> 403;
      case "sufficient" -> endpoint.success();
      default -> throw new IllegalArgumentException(row);
    };
  }

  private void check(Endpoint endpoint, Row row, int expected) throws Exception {
    String base = endpoint.audience() == Audience.ADMIN ? admin : data;
    Map<String, String> headers = new LinkedHashMap<>(endpoint.headers());
    row.header().apply(endpoint).ifPresent(value -> headers.put("Authorization", value));
    long started = System.nanoTime();
    HttpResponse<String> answer =
        send(endpoint.method(), base + endpoint.path(), null, headers, endpoint.body());
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(answer.statusCode()).as("%s", answer.body()).isEqualTo(expected);
    if (expected == 401 || expected == 403) {
      // Refused at once: a long-poll held even to its timeout (2 s here) would take longer.
      assertThat(took).isLessThan(Duration.ofMillis(1500));
    }
    if (expected == 401) {
      assertThat(answer.headers().firstValue("WWW-Authenticate"))
          .contains("Bearer realm=\"picomq\"");
    }
    if ((expected == 401 || expected == 403) && !endpoint.method().equals("HEAD")) {
      JsonNode error = AdminHttp.json(answer);
      assertThat(error.path("error").asText()).isIn("unauthorized", "forbidden");
      assertThat(error.path("message").asText()).isNotEmpty().doesNotContain(root.substring(13));
    }
  }

  private Endpoint pico(
      String name,
      String method,
      String path,
      Map<String, String> headers,
      String body,
      Verb verb,
      int success) {
    return new Endpoint(
        name, Audience.PICO, method, path, headers, body, Set.of(verb), true, success);
  }

  private Endpoint ds(
      String name,
      String method,
      String path,
      Map<String, String> headers,
      String body,
      Set<Verb> verbs,
      int success) {
    return new Endpoint(
        name,
        Audience.DURABLE_STREAMS,
        method,
        "/v1/stream" + path,
        headers,
        body,
        verbs,
        true,
        success);
  }

  private Endpoint adminEndpoint(
      String name,
      String method,
      String path,
      String body,
      Set<Verb> verbs,
      boolean overStreams,
      int success) {
    Map<String, String> headers =
        method.equals("GET") ? Map.of() : Map.of("Content-Type", "application/json");
    return new Endpoint(
        name, Audience.ADMIN, method, path, headers, body, verbs, overStreams, success);
  }

  private static List<String> names(Set<Verb> verbs) {
    return verbs.stream().map(Verb::wireName).toList();
  }

  private static List<String> allAudiences() {
    return Arrays.stream(Audience.values()).map(Audience::wireName).toList();
  }

  static String scope(
      String streams, List<String> operations, List<String> audiences, Instant expiresAt) {
    return "{\"streams\":[\""
        + streams
        + "\"],\"operations\":"
        + quoted(operations)
        + ",\"audiences\":"
        + quoted(audiences)
        + (expiresAt == null
            ? ""
            : ",\"expires_at\":\"" + expiresAt.truncatedTo(ChronoUnit.SECONDS) + "\"")
        + "}";
  }

  private static String quoted(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(",", "[", "]"));
  }

  private String token(String scope) throws Exception {
    return issue(root, scope).path("token").asText();
  }

  private JsonNode issue(String issuer, String scope) throws Exception {
    HttpResponse<String> answer =
        send(
            "POST",
            admin + "/admin/tokens",
            issuer,
            Map.of("Content-Type", "application/json"),
            "{\"scope\":" + scope + "}");
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    return AdminHttp.json(answer);
  }

  private int rooted(String method, String url, Map<String, String> headers, String body)
      throws Exception {
    return send(method, url, root, headers, body).statusCode();
  }

  private HttpResponse<String> send(
      String method, String url, String token, Map<String, String> headers, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
    headers.forEach(request::header);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
