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
import java.util.Map;

/** {@link AdminClient} over java.net.http: JSON in, JSON out. */
final class HttpAdminClient implements AdminClient {

  private final Endpoints endpoints;
  private final HttpTransport transport;
  private final Duration requestTimeout;

  HttpAdminClient(URI adminEndpoint, HttpClient http, boolean ownsClient, Duration requestTimeout) {
    this.endpoints = new Endpoints(adminEndpoint, Protocol.PICO);
    this.transport = new HttpTransport(http, ownsClient, endpoints.path("/health"));
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

  private JsonNode get(String path) {
    return json(HttpCall.of("GET", endpoints.path(path), requestTimeout));
  }

  private JsonNode post(String path, JsonNode body) {
    HttpCall call =
        HttpCall.of("POST", endpoints.path(path), requestTimeout)
            .withHeaders(Map.of("Content-Type", "application/json"))
            .withBody(body.toString().getBytes(StandardCharsets.UTF_8));
    return json(call);
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
