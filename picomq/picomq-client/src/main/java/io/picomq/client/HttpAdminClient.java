package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link AdminClient} over java.net.http: JSON in, JSON out. */
final class HttpAdminClient implements AdminClient {

  private final Endpoints endpoints;
  private final HttpTransport transport;
  private final Duration requestTimeout;

  HttpAdminClient(
      URI adminEndpoint,
      HttpClient http,
      boolean ownsClient,
      Duration requestTimeout,
      Optional<BearerToken> token) {
    this.endpoints = new Endpoints(adminEndpoint, Protocol.PICO);
    this.transport = new HttpTransport(http, ownsClient, endpoints.path("/health"), token);
    this.requestTimeout = requestTimeout;
  }

  @Override
  public JsonNode cluster() {
    return get("/admin/cluster");
  }

  @Override
  public JsonNode nodes() {
    return get("/admin/nodes");
  }

  @Override
  public JsonNode stream(String name) {
    return get("/admin/streams" + Endpoints.encodePath(Endpoints.name(name)));
  }

  @Override
  public JsonNode transfer(String stream, long toNode) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("stream", Endpoints.name(stream));
    body.put("toNode", toNode);
    return post("/admin/transfer", body);
  }

  @Override
  public JsonNode setSlots(long nodeId, int slots) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("slots", slots);
    return post("/admin/nodes/" + nodeId, body);
  }

  @Override
  public JsonNode cancelTransfer(String stream) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("stream", Endpoints.name(stream));
    return post("/admin/transfer/cancel", body);
  }

  @Override
  public JsonNode drain(long nodeId) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("node", nodeId);
    return post("/admin/drain", body);
  }

  @Override
  public JsonNode rebalance() {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("by", "streams");
    return post("/admin/rebalance", body);
  }

  @Override
  public IssuedToken issueToken(TokenScope scope, Optional<String> label) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.set("scope", scope.toJson());
    label.ifPresent(text -> body.put("label", text));
    return IssuedToken.fromJson(post("/admin/tokens", body));
  }

  @Override
  public List<TokenInfo> tokens() {
    JsonNode listed = get("/admin/tokens").path("tokens");
    if (!listed.isArray()) {
      throw Responses.malformed("GET /admin/tokens answered without a tokens array");
    }
    List<TokenInfo> tokens = new ArrayList<>();
    listed.forEach(token -> tokens.add(TokenInfo.fromJson(token)));
    return List.copyOf(tokens);
  }

  @Override
  public void revokeToken(String id) {
    if (id.isEmpty() || id.contains("/")) {
      throw new IllegalArgumentException("a token id is not empty and has no '/': '" + id + "'");
    }
    HttpResponse<byte[]> response =
        transport.send(delete("/admin/tokens/" + Endpoints.encodePath(id)));
    if (response.statusCode() == 404) {
      // Whatever code the server names it with: here a 404 is about the token, not a stream.
      PicoException answer =
          ErrorAnswers.from(Protocol.PICO, 404, response.headers(), body(response));
      throw new TokenNotFoundException(
          404, answer.errorCode(), answer.message(), answer.body(), null);
    }
    Responses.success(Protocol.PICO, response);
  }

  @Override
  public Optional<TokenScope> anonymousScope() {
    JsonNode scope = get("/admin/anonymous").path("scope");
    return scope.isMissingNode() || scope.isNull()
        ? Optional.empty()
        : Optional.of(TokenScope.fromJson(scope));
  }

  @Override
  public void setAnonymousScope(TokenScope scope) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.set("scope", scope.toJson());
    json(withJson(HttpCall.of("PUT", endpoints.path("/admin/anonymous"), requestTimeout), body));
  }

  @Override
  public void clearAnonymousScope() {
    json(delete("/admin/anonymous"));
  }

  private JsonNode get(String path) {
    return json(HttpCall.of("GET", endpoints.path(path), requestTimeout));
  }

  private JsonNode post(String path, JsonNode body) {
    return json(withJson(HttpCall.of("POST", endpoints.path(path), requestTimeout), body));
  }

  /** The admin listener takes writes as JSON only, bodiless deletes included (see its docs). */
  private HttpCall delete(String path) {
    return HttpCall.of("DELETE", endpoints.path(path), requestTimeout)
        .withHeaders(Map.of("Content-Type", "application/json"));
  }

  private static HttpCall withJson(HttpCall call, JsonNode body) {
    return call.withHeaders(Map.of("Content-Type", "application/json"))
        .withBody(body.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] body(HttpResponse<byte[]> response) {
    return response.body() == null ? new byte[0] : response.body();
  }

  private JsonNode json(HttpCall call) {
    HttpResponse<byte[]> response = Responses.success(Protocol.PICO, transport.send(call));
    if (response.body().length == 0) {
      return JsonNodeFactory.instance.objectNode();
    }
    try {
      return ErrorAnswers.JSON.readTree(response.body());
    } catch (IOException e) {
      throw Responses.malformed("the admin answer is not JSON: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    transport.close();
  }
}
