package io.picomq.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests to a node's listeners over real sockets, as an operator's script makes them. */
final class AdminHttp {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();

  /** {@code method url} with {@code body} as text (none when null). */
  HttpResponse<String> send(String method, String url, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (body != null) {
      // As the CLI, the SDK and the dashboard do: the admin listener takes JSON writes only.
      boolean admin = URI.create(url).getPath().startsWith("/admin/");
      request.header("Content-Type", admin ? "application/json" : "text/plain");
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The answer's body as JSON. */
  static JsonNode json(HttpResponse<String> answer) {
    try {
      return JSON.readTree(answer.body());
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + answer.body(), e);
    }
  }

  /** The entry of node {@code nodeId} in the {@code nodes} array of {@code GET /admin/nodes}. */
  static JsonNode byNodeId(JsonNode nodes, int nodeId) {
    for (JsonNode node : nodes) {
      if (node.path("nodeId").asInt() == nodeId) {
        return node;
      }
    }
    throw new AssertionError("no node " + nodeId + " in " + nodes);
  }
}
