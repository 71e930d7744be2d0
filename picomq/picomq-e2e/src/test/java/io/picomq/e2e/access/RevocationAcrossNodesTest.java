package io.picomq.e2e.access;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code pico serve} processes with access control on, sharing a Postgres metadata database: a
 * token issued through node 1 works on node 2 at once, and once revoked through node 1 the very
 * next request with it to node 2 is refused. Several rounds, each with a fresh token.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class RevocationAcrossNodesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOT = Tokens.fresh();
  private static final String SCOPE =
      "{\"scope\":{\"streams\":[\"*\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"]}}";

  @TempDir static Path dir;
  private static PostgresCluster cluster;
  private static ServerProcess one;
  private static ServerProcess two;

  @BeforeAll
  static void startTwoNodes() throws Exception {
    cluster = PostgresCluster.create(dir);
    Map<String, String> root = Map.of("PICO_ROOT_TOKEN", ROOT);
    one = cluster.node(1, root, "--access-control");
    two = cluster.node(2, root, "--access-control");
  }

  @AfterAll
  static void stopNodes() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aTokenRevokedOnOneNodeIsRefusedOnTheOtherAtTheNextRequest() throws Exception {
    URI listOnTwo = two.endpoint().resolve("/?prefix=/");
    assertThat(Tokens.send("GET", listOnTwo, null, null).statusCode()).isEqualTo(401);
    for (int round = 0; round < 5; round++) {
      HttpResponse<String> issued =
          Tokens.send("POST", one.adminEndpoint().resolve("/admin/tokens"), ROOT, SCOPE);
      assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
      JsonNode token = JSON.readTree(issued.body());
      String secret = token.path("token").asText();

      assertThat(Tokens.send("GET", listOnTwo, secret, null).statusCode())
          .as("round %d: issued through node 1, used on node 2 at once", round)
          .isEqualTo(200);

      HttpResponse<String> revoked =
          Tokens.send(
              "DELETE",
              one.adminEndpoint().resolve("/admin/tokens/" + token.path("id").asText()),
              ROOT,
              null);
      assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(204);

      HttpResponse<String> next = Tokens.send("GET", listOnTwo, secret, null);
      assertThat(next.statusCode()).as("round %d: %s", round, next.body()).isEqualTo(401);
      assertThat(next.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"picomq\"");
    }
  }
}
