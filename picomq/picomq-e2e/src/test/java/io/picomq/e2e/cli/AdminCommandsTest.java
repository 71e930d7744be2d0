package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.ClientVerbsTest.assertOk;
import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico admin} against a real node's admin listener. One SQLite node cannot move a stream
 * anywhere, so transfers are checked for their refusals; the move itself needs a Postgres cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private ServerProcess server;
  private PicoCli pico;
  private PicoCli admin;

  @BeforeAll
  void startServer() {
    server = ServerProcess.start(dir.resolve("server"));
    pico = new PicoCli(dir.resolve("config.json"));
    admin = pico.withEnv("PICO_ADMIN_ENDPOINT", server.adminEndpoint().toString());
    assertOk(pico.run(at(server.endpoint(), "create", "/admin/s")));
    assertOk(
        pico.run(
            "r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            at(server.endpoint(), "append", "/admin/s")));
  }

  @AfterAll
  void stopServer() {
    server.close();
  }

  @Test
  void clusterPrintsLinesOrTheServersJson() throws Exception {
    PicoCli.Result lines = admin.run("admin", "cluster");
    assertOk(lines);
    assertThat(lines.out())
        .containsPattern("(?m)^clusterId +picomq$")
        .containsPattern("(?m)^ready +true$");

    PicoCli.Result json = admin.run("admin", "cluster", "--json");
    assertOk(json);
    JsonNode cluster = JSON.readTree(json.out());
    assertThat(cluster.path("nodeId").asInt()).isEqualTo(1);
    assertThat(cluster.path("streams").asInt()).isPositive();
  }

  @Test
  void nodesIsATableAndSetSlotsChangesIt() throws Exception {
    PicoCli.Result table = admin.run("admin", "nodes");
    assertOk(table);
    assertThat(table.out().lines().findFirst().orElseThrow())
        .startsWith("NODEID")
        .contains("SLOTS", "STATE");
    // The node renews its liveness row: it is live (a dead node: NodesLivenessTest).
    assertThat(table.out().lines().skip(1).findFirst().orElseThrow()).contains(" live ");

    assertOk(admin.run("admin", "set-slots", "1", "--slots", "3"));
    JsonNode nodes = JSON.readTree(admin.run("admin", "--json", "nodes").out());
    assertThat(nodes.path("nodes").get(0).path("slots").asInt()).isEqualTo(3);
    assertOk(admin.run("admin", "set-slots", "1", "--slots", "1"));
  }

  @Test
  void streamSaysWhereAStreamLivesAndExitsThreeForAnUnknownOne() throws Exception {
    // The flag instead of the variable this time.
    PicoCli.Result stream =
        pico.run(
            "admin", "stream", "/admin/s", "--admin-endpoint", server.adminEndpoint().toString());
    assertOk(stream);
    assertThat(stream.out()).containsPattern("(?m)^owner +1$").containsPattern("(?m)^state +open$");
    JsonNode json = JSON.readTree(admin.run("admin", "stream", "admin/s", "--json").out());
    assertThat(json.path("name").asText()).isEqualTo("/admin/s");

    PicoCli.Result unknown = admin.run("admin", "stream", "/admin/none");
    assertThat(unknown.exitCode()).isEqualTo(3);
    assertThat(unknown.errLines())
        .singleElement()
        .asString()
        .startsWith("pico: ")
        .endsWith("(stream_not_found)");
  }

  @Test
  void transferRefusalsHaveTheirExitCodes() {
    PicoCli.Result here = admin.run("admin", "transfer", "/admin/s", "--to-node", "1");
    assertThat(here.exitCode()).isEqualTo(1);
    assertThat(here.errLines()).singleElement().asString().endsWith("(already_on_node)");

    PicoCli.Result noNode = admin.run("admin", "transfer", "/admin/s", "--to-node", "9", "--wait");
    assertThat(noNode.exitCode()).isEqualTo(3);
    assertThat(noNode.errLines()).singleElement().asString().endsWith("(unknown_node)");
  }

  @Test
  void anAdminListenerThatIsNotThereExitsFour() {
    PicoCli.Result result = pico.run("admin", "cluster", "--admin-endpoint", "http://127.0.0.1:1");
    assertThat(result.exitCode()).isEqualTo(4);
    assertThat(result.errLines()).singleElement().asString().startsWith("pico: cannot reach");
  }
}
