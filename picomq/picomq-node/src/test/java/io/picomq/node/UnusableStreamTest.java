package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole node with a damaged registry entry in its metadata (issue 11, F1 at depth): it starts,
 * lists its other streams, reports the damaged one in the admin API, answers {@code 409
 * stream_unusable} for it, and deletes it.
 */
class UnusableStreamTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private Node node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  @Test
  void aNodeWithAnUnusableEntryStartsReportsItAndDeletesIt() throws Exception {
    node = start(1);
    assertThat(send("PUT", data("/ok")).statusCode()).isEqualTo(201);
    // Written straight into the metadata KV, as damaged storage (or a bug) would leave it.
    node.plane()
        .proposeAccepted(new Command.KvPut("stream//bad", KvValue.of(new byte[] {2, 0, 0, 0})))
        .join();
    node.stop(Duration.ZERO);

    node = start(2);
    HttpResponse<String> listing = send("GET", data("/"));
    assertThat(listing.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(listing.body()).path("streams").findValuesAsText("name"))
        .containsExactly("/ok");

    HttpResponse<String> read = send("GET", data("/bad"));
    assertThat(read.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(read.body()).path("error").asText()).isEqualTo("stream_unusable");
    assertThat(send("HEAD", data("/bad")).statusCode()).isEqualTo(409);
    assertThat(send("POST", data("/bad")).statusCode()).isEqualTo(409);
    assertThat(send("PUT", data("/bad")).statusCode()).isEqualTo(409);

    HttpResponse<String> reported = send("GET", admin("/admin/streams/bad"));
    assertThat(reported.statusCode()).isEqualTo(200);
    JsonNode report = JSON.readTree(reported.body());
    assertThat(report.path("state").asText()).isEqualTo("unusable");
    assertThat(report.path("reason").asText()).startsWith("damaged registry entry");

    assertThat(send("DELETE", data("/bad")).statusCode()).isEqualTo(204);
    assertThat(send("GET", data("/bad")).statusCode()).isEqualTo(404);
    assertThat(send("GET", admin("/admin/streams/bad")).statusCode()).isEqualTo(404);
    assertThat(send("PUT", data("/bad")).statusCode()).isEqualTo(201);
  }

  private Node start(long epoch) throws Exception {
    Node started =
        Node.start(AdminApiTest.config(dir, epoch, ListenerProtocol.PICO), Clock.systemUTC());
    return started;
  }

  private String data(String path) {
    return "http://127.0.0.1:" + node.address().getPort() + path;
  }

  private String admin(String path) {
    return "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort() + path;
  }

  private HttpResponse<String> send(String method, String uri) throws Exception {
    HttpRequest.BodyPublisher body =
        method.equals("POST")
            ? HttpRequest.BodyPublishers.ofString("x")
            : HttpRequest.BodyPublishers.noBody();
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).method(method, body).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
