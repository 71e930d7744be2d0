package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.frontend.ListenerProtocol;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A whole node on real sockets: the protocol listener and the admin listener over HTTP. */
class NodeTest {
  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  private NodeConfig config(long epoch) {
    return config(epoch, ListenerProtocol.PICO);
  }

  private NodeConfig config(long epoch, ListenerProtocol protocol) {
    return AdminApiTest.config(dir, epoch, protocol);
  }

  @Test
  void servesStreamsAndReportsReadinessThenRestartsWithItsData() throws Exception {
    Node node = Node.start(config(1), Clock.systemUTC());
    String base = "http://127.0.0.1:" + node.address().getPort();
    String admin = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
    try {
      assertThat(send("GET", admin + "/ready", null).statusCode()).isEqualTo(200);
      assertThat(send("GET", admin + "/health", null).statusCode()).isEqualTo(200);
      assertThat(send("PUT", base + "/e2e/s", "").statusCode()).isEqualTo(201);
      assertThat(send("POST", base + "/e2e/s", "hello").statusCode()).isBetween(200, 204);
      HttpResponse<String> read = send("GET", base + "/e2e/s?seq=0", null);
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.body()).contains("hello");
      HttpResponse<String> stream = send("GET", admin + "/admin/streams/e2e/s", null);
      assertThat(stream.statusCode()).isEqualTo(200);
      assertThat(stream.body()).contains("\"owner\":1").contains("\"state\":\"open\"");
      assertThat(send("GET", admin + "/admin/nodes", null).body()).contains("\"nodeId\":1");
      assertThat(send("GET", admin + "/admin/streams/missing", null).statusCode()).isEqualTo(404);
      assertThat(send("POST", admin + "/admin/nodes/1", "{\"slots\": 3}").statusCode())
          .isEqualTo(200);
      assertThat(send("GET", admin + "/admin/nodes", null).body()).contains("\"slots\":3");
      assertThat(send("POST", admin + "/admin/nodes/7", "{\"slots\": 3}").statusCode())
          .isEqualTo(404);
      assertThat(send("POST", admin + "/admin/nodes/1", "{\"slots\": -1}").statusCode())
          .isEqualTo(400);
    } finally {
      node.stop(Duration.ofSeconds(1));
    }
    assertThat(node.ready()).isFalse();

    Node again = Node.start(config(2), Clock.systemUTC());
    try {
      String url = "http://127.0.0.1:" + again.address().getPort() + "/e2e/s?seq=0";
      assertThat(send("GET", url, null).body()).contains("hello");
    } finally {
      again.stop(Duration.ZERO);
    }
  }

  @Test
  void durableStreamsLongPollWakesOnAnAppend() throws Exception {
    Node node = Node.start(config(1, ListenerProtocol.DS), Clock.systemUTC());
    String stream = "http://127.0.0.1:" + node.address().getPort() + "/v1/stream/ds/live";
    try {
      assertThat(send("PUT", stream, "").statusCode()).isEqualTo(201);
      assertThat(send("POST", stream, "first").statusCode()).isBetween(200, 204);
      HttpResponse<String> caughtUp = send("GET", stream + "?offset=-1", null);
      assertThat(caughtUp.body()).isEqualTo("first");
      String tail = caughtUp.headers().firstValue("Stream-Next-Offset").orElseThrow();
      var waiting =
          http.sendAsync(
              HttpRequest.newBuilder(URI.create(stream + "?offset=" + tail + "&live=long-poll"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      // The poll parks: it stays unanswered (for 200 ms, long enough to reach the wait) until
      // the append.
      await("the long-poll staying parked")
          .during(Duration.ofMillis(200))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !waiting.isDone());
      assertThat(send("POST", stream, "second").statusCode()).isBetween(200, 204);
      HttpResponse<String> woken = waiting.get(5, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(woken.statusCode()).isEqualTo(200);
      assertThat(woken.body()).isEqualTo("second");
    } finally {
      node.stop(Duration.ZERO);
    }
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
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
}
