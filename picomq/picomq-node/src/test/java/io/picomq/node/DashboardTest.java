package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.server.service.Registry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser: headless Chromium (Debian's {@code chromium}) driven by
 * playwright-core from {@code src/test/dashboard}, against a whole node on free ports. Skipped,
 * saying so, where Chromium or npm is missing.
 */
class DashboardTest {
  @TempDir Path dir;

  @Test
  void showsTheClusterAndItsControlsCancelTransferAndDrain() throws Exception {
    HeadlessChromium.require("DashboardTest");
    Node node = Node.start(AdminApiTest.config(dir, 1, ListenerProtocol.PICO), Clock.systemUTC());
    try {
      String base = "http://127.0.0.1:" + node.address().getPort();
      String admin = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/dash/s"))
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(201);
      // A pending transfer for the page to show, which nothing carries out: the stream moves to
      // node 3 and is opened there, then is asked to move on to node 2; both are registered by
      // this node on their behalf as processes started after its last liveness read (presumed
      // alive, though nothing runs them).
      long later = Clock.systemUTC().millis() + 3_600_000;
      assertThat(
              node.plane()
                  .propose(new Command.RegisterNode(2, later, "http://127.0.0.1:1", 3))
                  .join())
          .isInstanceOf(Result.Ok.class);
      node.plane()
          .proposeAccepted(new Command.RegisterNode(3, later, "http://127.0.0.1:2", 0))
          .join();
      assertThat(post(http, admin + "/admin/transfer", "{\"stream\": \"/dash/s\", \"toNode\": 3}"))
          .isEqualTo(202);
      long streamId = Registry.registeredStreamId(node.plane().state(), "/dash/s").getAsLong();
      Awaitility.await("node 1 handing the stream to node 3")
          .atMost(Duration.ofSeconds(30))
          .until(() -> node.plane().state().pendingTransfers().isEmpty());
      node.plane().proposeAccepted(new Command.OpenStream(streamId, 3, later)).join();
      HttpResponse<String> transfer =
          http.send(
              HttpRequest.newBuilder(URI.create(admin + "/admin/transfer"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"stream\": \"/dash/s\", \"toNode\": 2}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(transfer.statusCode()).isEqualTo(202);
      JsonNode pending = new ObjectMapper().readTree(transfer.body());

      String pendingRow =
          "[\"/dash/s\",\""
              + pending.path("streamId").asLong()
              + "\",\"3\",\"2\",\""
              + pending.path("epoch").asLong()
              + "\",\"Cancel\"]";

      JsonNode shown =
          HeadlessChromium.run(dir, "check-dashboard.mjs", admin + "/", "--act", "/dash/s", "2");

      assertThat(shown.path("errors")).isEmpty();
      assertThat(shown.path("nodeId").asText()).isEqualTo("1");
      assertThat(shown.path("ready").asText()).isEqualTo("ready");
      assertThat(shown.path("status").asText()).isEqualTo("ready");
      // This node renews its liveness row and holds no stream; nodes 2 and 3 are registered
      // without a row yet (suspect), node 3 holds the stream, open. Columns: id, epoch, state,
      // address, slots, streams, open, a button.
      assertThat(shown.path("nodes").toString())
          .contains("[\"1\",\"1\",\"live\",")
          .contains("\"1\",\"0\",\"0\",\"Drain\"]")
          .contains(
              "[\"2\",\""
                  + later
                  + "\",\"suspect\",\"http://127.0.0.1:1\",\"3\",\"0\",\"0\",\"Drain\"]")
          .contains(
              "[\"3\",\""
                  + later
                  + "\",\"suspect\",\"http://127.0.0.1:2\",\"0\",\"1\",\"1\",\"Drain\"]");
      assertThat(shown.path("transfers").toString()).isEqualTo("[" + pendingRow + "]");

      // The page's controls, in the order the script uses them.
      JsonNode actions = shown.path("actions");
      assertThat(actions.path("cancelled").path("result").asText())
          .isEqualTo("Transfer of /dash/s: cancelled.");
      assertThat(actions.path("cancelled").path("transfers").toString()).isEqualTo("[[\"none\"]]");
      assertThat(actions.path("transferred").path("result").asText())
          .isEqualTo("Transfer of /dash/s to node 2: pending.");
      assertThat(actions.path("transferred").path("transfers").toString())
          .isEqualTo("[" + pendingRow + "]");
      // Node 2 holds no stream: draining it only takes its slots away.
      assertThat(actions.path("drained").path("result").asText())
          .isEqualTo("Draining node 2 (slots were 3): 0 transfer(s).");
      assertThat(actions.path("drained").path("nodes").toString())
          .contains(
              "[\"2\",\""
                  + later
                  + "\",\"suspect\",\"http://127.0.0.1:1\",\"0\",\"0\",\"0\",\"Drain\"]");
      // Neither node 2 nor node 3 has slots now: node 1 has nowhere to go.
      assertThat(actions.path("refused").path("result").asText()).startsWith("no_target: ");
      assertThat(node.plane().state().nodes().get(1).slots()).isEqualTo(1);
    } finally {
      node.stop(Duration.ZERO);
    }
  }

  private static int post(HttpClient http, String uri, String json) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(uri))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }
}
