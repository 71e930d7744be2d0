package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.ClientVerbsTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico admin nodes} on a two-node cluster (Postgres metadata, a fresh database per run):
 * both nodes show live; once one is killed (no clean shutdown removes its row) and its short TTL
 * lapses, the other shows it dead.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class NodesLivenessTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private PostgresCluster cluster;

  @AfterEach
  void stopNodes() throws SQLException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aKilledNodeTurnsDeadOnceItsTtlLapses() throws Exception {
    cluster = PostgresCluster.create(dir);
    ServerProcess one = cluster.node(1, "--node-ttl", "1s");
    ServerProcess two = cluster.node(2, "--node-ttl", "1s");
    PicoCli admin =
        new PicoCli(dir.resolve("config.json"))
            .withEnv("PICO_ADMIN_ENDPOINT", one.adminEndpoint().toString());

    PicoCli.Result table = admin.run("admin", "nodes");
    assertOk(table);
    assertThat(table.out().lines().findFirst().orElseThrow()).contains("STATE");
    assertThat(stateOf(admin, 1)).isEqualTo("live");
    assertThat(stateOf(admin, 2)).isEqualTo("live");

    two.kill();

    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> stateOf(admin, 2).equals("dead"));
    assertThat(stateOf(admin, 1)).isEqualTo("live");
    assertThat(admin.run("admin", "nodes").out()).containsPattern("(?m)^2 .* dead ");
  }

  private static String stateOf(PicoCli admin, int nodeId) throws Exception {
    PicoCli.Result answer = admin.run("admin", "nodes", "--json");
    assertOk(answer);
    for (JsonNode node : JSON.readTree(answer.out()).path("nodes")) {
      if (node.path("nodeId").asInt() == nodeId) {
        return node.path("state").asText();
      }
    }
    throw new AssertionError("node " + nodeId + " is not registered: " + answer.out());
  }
}
