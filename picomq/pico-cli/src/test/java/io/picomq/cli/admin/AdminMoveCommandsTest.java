package io.picomq.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.node.Node;
import io.picomq.node.NodeConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico admin transfer}, {@code drain} and {@code rebalance} in this JVM against a real
 * single node (SQLite) on real sockets: what they answer and how they exit when nothing can move.
 * The moves themselves: {@link AdminMoveCommandsPostgresTest}.
 */
class AdminMoveCommandsTest {
  @TempDir Path dir;
  private Node node;
  private InProcessPico pico;

  @BeforeEach
  void startNode() throws Exception {
    node =
        Node.start(
            NodeConfig.builder()
                .nodeEpoch(1)
                .listen("127.0.0.1:0")
                .adminListen("127.0.0.1:0")
                .metaUrl("sqlite:" + dir.resolve("meta.db"))
                .storage("0@file://" + dir.resolve("objects"))
                .protocol(ListenerProtocol.PICO)
                .build(),
            Clock.systemUTC());
    pico = new InProcessPico("http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort());
    HttpResponse<String> created =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.address().getPort() + "/m/s"))
                    .PUT(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).isEqualTo(201);
  }

  @AfterEach
  void stopNode() {
    node.stop(Duration.ZERO);
  }

  @Test
  void drainingTheOnlyNodeExitsOneAndAnUnknownNodeThree() throws Exception {
    InProcessPico.Run nowhere = pico.admin("drain", "1");
    assertThat(nowhere.exitCode()).as("%s", nowhere).isEqualTo(1);
    assertThat(nowhere.err().strip()).startsWith("pico: ").endsWith("(no_target)");

    InProcessPico.Run unknown = pico.admin("drain", "7", "--wait");
    assertThat(unknown.exitCode()).as("%s", unknown).isEqualTo(3);
    assertThat(unknown.err().strip()).endsWith("(unknown_node)");
    // Nothing changed: node 1 still offers its slot.
    JsonNode nodes = new ObjectMapper().readTree(pico.admin("nodes", "--json").out());
    assertThat(nodes.path("nodes").get(0).path("slots").asInt()).isEqualTo(1);
  }

  @Test
  void rebalanceWithNothingToMovePrintsAnEmptyPlan() {
    InProcessPico.Run lines = pico.admin("rebalance", "--wait");
    assertThat(lines.exitCode()).as("%s", lines).isZero();
    assertThat(lines.out())
        .containsPattern("(?m)^by +streams$")
        .containsPattern("(?m)^transfers +none$")
        .containsPattern("(?m)^refused +none$");
    InProcessPico.Run json = pico.admin("rebalance", "--json");
    assertThat(json.out().strip())
        .isEqualTo("{\"by\":\"streams\",\"transfers\":[],\"refused\":[]}");
  }

  @Test
  void cancelSaysNoneWhenNothingIsPending() {
    InProcessPico.Run cancel = pico.admin("transfer", "--cancel", "/m/s");
    assertThat(cancel.exitCode()).as("%s", cancel).isZero();
    assertThat(cancel.out())
        .containsPattern("(?m)^stream +/m/s$")
        .containsPattern("(?m)^state +none$");

    InProcessPico.Run unknown = pico.admin("transfer", "--cancel", "/m/nope");
    assertThat(unknown.exitCode()).isEqualTo(3);
    assertThat(unknown.err().strip()).endsWith("(stream_not_found)");
  }

  @Test
  void transferWantsATargetOrACancelAndAWellFormedTimeout() {
    assertThat(pico.admin("transfer", "/m/s").exitCode()).isEqualTo(2);
    assertThat(pico.admin("transfer", "/m/s", "--to", "2", "--cancel").exitCode()).isEqualTo(2);
    InProcessPico.Run waitingForACancel = pico.admin("transfer", "--cancel", "/m/s", "--wait");
    assertThat(waitingForACancel.exitCode()).isEqualTo(2);
    assertThat(waitingForACancel.err()).contains("--wait and --timeout go with --to");
    InProcessPico.Run soon = pico.admin("transfer", "/m/s", "--to", "1", "--timeout", "soon");
    assertThat(soon.exitCode()).isEqualTo(2);
    assertThat(soon.err()).contains("--timeout wants a whole number");
    // The timeout is checked before anything is asked: a move to itself would exit 1.
    InProcessPico.Run itself = pico.admin("transfer", "/m/s", "--to", "1");
    assertThat(itself.exitCode()).isEqualTo(1);
    assertThat(itself.err().strip()).endsWith("(already_on_node)");
  }

  @Test
  void helpDescribesEachVerb() {
    assertThat(pico.admin("transfer", "--help").out())
        .contains("--to=N", "--cancel", "--wait", "--timeout=DURATION");
    assertThat(pico.admin("drain", "--help").out()).contains("NODE", "slots to 0", "no_target");
    assertThat(pico.admin("rebalance", "--help").out()).contains("share", "--wait");
    assertThat(pico.admin("--help").out()).contains("drain", "rebalance", "transfer");
  }
}
