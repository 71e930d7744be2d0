package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.meta.command.Command;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node process that learns another node took it over (as after a pause past its liveness TTL)
 * stops and starts again with a new epoch, on the same port, and serves every record it had
 * acknowledged.
 */
class NodeSupervisorTest {
  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aTakenOverProcessRestartsWithANewEpochAndServesAgain() throws Exception {
    NodeConfig config =
        AdminApiTest.config(dir, 1, ListenerProtocol.PICO)
            .newBuilder()
            .listen("127.0.0.1:" + freePort())
            .build();
    try (NodeSupervisor supervisor = NodeSupervisor.start(config, Clock.systemUTC())) {
      Node first = supervisor.node();
      String base = "http://127.0.0.1:" + first.address().getPort();
      assertThat(send("PUT", base + "/z", "").statusCode()).isEqualTo(201);
      for (int i = 0; i < 5; i++) {
        assertThat(send("POST", base + "/z", "record " + i).statusCode()).isEqualTo(200);
      }

      // Another node (here: its registration alone) takes this process over, as Failover would.
      first.plane().proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join();
      first.plane().proposeAccepted(new Command.TakeOverNode(1, 1, 2, 1)).join();

      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> supervisor.node() != first && supervisor.node().ready());
      Node second = supervisor.node();
      assertThat(second.config().nodeEpoch()).isGreaterThan(1);
      assertThat(second.address().getPort()).isEqualTo(first.address().getPort());
      assertThat(second.plane().state().nodes().get(1).isTakenOver()).isFalse();
      HttpResponse<String> read = send("GET", base + "/z?seq=0", null);
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.headers().firstValue("Pico-Next-Seq")).contains("5");
      assertThat(send("POST", base + "/z", "after").statusCode()).isEqualTo(200);
    }
  }

  private static NodeConfig.Builder minimal() {
    return NodeConfig.builder().nodeEpoch(7).metaUrl("sqlite::memory:").storage("0@file:///tmp/x");
  }

  @Test
  void aRestartKeepsThePortsAListenerOnPortZeroWasGiven() {
    NodeConfig old = minimal().listen("127.0.0.1:0").adminListen("127.0.0.1:0").build();

    NodeConfig next =
        NodeSupervisor.restartConfig(
            old,
            8,
            new InetSocketAddress("127.0.0.1", 41000),
            Optional.of(new InetSocketAddress("127.0.0.1", 42000)));

    assertThat(next.nodeEpoch()).isEqualTo(8);
    assertThat(next.listen()).isEqualTo("127.0.0.1:41000");
    assertThat(next.adminListen()).contains("127.0.0.1:42000");
    assertThat(next.advertisedAddress(41000)).isEqualTo("http://127.0.0.1:41000");
  }

  @Test
  void aRestartKeepsConfiguredPortsAsTheyAre() {
    NodeConfig old = minimal().listen("[::1]:4437").noAdminListener().build();

    NodeConfig next =
        NodeSupervisor.restartConfig(old, 8, new InetSocketAddress("::1", 4437), Optional.empty());

    assertThat(next.listen()).isEqualTo("[::1]:4437");
    assertThat(next.adminListen()).isEmpty();
  }

  private static int freePort() throws Exception {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private HttpResponse<String> send(String method, String uri, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30));
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
