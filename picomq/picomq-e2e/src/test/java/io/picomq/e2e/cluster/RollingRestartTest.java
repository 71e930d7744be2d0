package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.client.PicoClient;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.S3ProxyProcess;
import io.picomq.e2e.ServerProcess;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling restart under load, issue 14: three {@code pico serve} processes on a fresh Postgres
 * database and one S3Proxy bucket, with an SDK producer session and a tailing consumer on each of
 * 32 streams ({@link ChaosLoad}). Each node in turn is drained ({@code POST /admin/drain}: its
 * streams move to the others while they are written), stopped, started again and given its slot
 * back; then the streams are rebalanced. Afterwards no client operation has failed, and every
 * acknowledged record is in its stream exactly once, in order, and was consumed once.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class RollingRestartTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NODES = 3;
  private static final int STREAMS = 32;
  private static final Duration STEP = Duration.ofSeconds(90);

  @TempDir Path dir;
  private PostgresCluster cluster;
  private S3ProxyProcess s3;
  private final List<ServerProcess> nodes = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void createCluster() throws SQLException {
    cluster = PostgresCluster.create(dir);
  }

  @AfterEach
  void stop() throws SQLException {
    cluster.close();
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void drainingAndRestartingEachNodeInTurnFailsNoClientOperation() throws Exception {
    s3 = S3ProxyProcess.start(dir.resolve("s3"), "rolling");
    for (int id = 1; id <= NODES; id++) {
      nodes.add(node(id));
    }
    ChaosLoad.Totals totals;
    List<String> problems;
    try (ChaosLoad load =
        ChaosLoad.start(
            nodes.stream().map(ServerProcess::endpoint).toList(),
            ChaosLoad.Route.rotating(STREAMS, NODES))) {
      Awaitility.await("every stream acknowledging")
          .atMost(Duration.ofSeconds(60))
          .until(() -> load.acknowledgedPerStream().stream().allMatch(acked -> acked > 0));
      for (int id = 1; id <= NODES; id++) {
        ServerProcess other = nodes.get(id % NODES);
        long started = System.nanoTime();
        post(other, "/admin/drain", "{\"node\": " + id + "}");
        awaitDrained(other, id);
        long drained = System.nanoTime();
        nodes.get(id - 1).restart();
        post(other, "/admin/nodes/" + id, "{\"slots\": 1}");
        System.out.printf(
            Locale.ROOT,
            "rolling restart: node %d drained in %.1fs, back after %.1fs; %d records"
                + " acknowledged%n",
            id,
            (drained - started) / 1e9,
            (System.nanoTime() - drained) / 1e9,
            load.acknowledged());
      }
      post(nodes.getFirst(), "/admin/rebalance", "{}");
      Awaitility.await("the rebalance done")
          .atMost(STEP)
          .until(() -> pendingTransfers(nodes.getFirst()) == 0);
      long before = load.acknowledged();
      Awaitility.await("the load going on after the last step")
          .atMost(STEP)
          .until(() -> load.acknowledged() > before + STREAMS * 10L);
      load.stopProducing();
      try (PicoClient reader = PicoClient.builder().endpoint(nodes.getFirst().endpoint()).build()) {
        totals = load.verify(reader, Duration.ofSeconds(60));
      }
      problems = load.problems();
    }
    System.out.printf(
        Locale.ROOT,
        "rolling restart: %d records acknowledged, %d consumed; longest wait for an acknowledgement"
            + " %.1fs (%s); SDK retries %s%n",
        totals.acknowledged(),
        totals.consumed(),
        totals.longestAckGap().toMillis() / 1000.0,
        totals.longestAckGapStream(),
        totals.retries());
    assertThat(problems).as("what broke an expectation").isEmpty();
    assertThat(totals.sessionsReplaced()).as("producer sessions that failed").isZero();
    assertThat(totals.acknowledged()).isPositive();
  }

  private ServerProcess node(int id) {
    return cluster.node(id, ChaosTest.environment(s3), "--storage=" + s3.storage(-2));
  }

  /** Nothing placed on node {@code id} any more, and no transfer pending. */
  private void awaitDrained(ServerProcess admin, int id) throws Exception {
    try {
      Awaitility.await("node " + id + " drained")
          .atMost(STEP)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> placedOn(admin, id) == 0 && pendingTransfers(admin) == 0);
    } catch (ConditionTimeoutException e) {
      StringBuilder why = new StringBuilder("node " + id + " not drained:\n");
      why.append(get(admin, "/admin/nodes")).append('\n').append(get(admin, "/admin/cluster"));
      for (ServerProcess node : nodes) {
        node.output().stream()
            .filter(line -> line.contains("WARN") || line.contains("transfer"))
            .forEach(line -> why.append('\n').append(line));
      }
      throw new AssertionError(why.toString(), e);
    }
  }

  private long placedOn(ServerProcess admin, int id) throws Exception {
    for (JsonNode node : get(admin, "/admin/nodes").path("nodes")) {
      if (node.path("nodeId").asInt() == id) {
        return node.path("streams").asLong();
      }
    }
    throw new AssertionError("node " + id + " is not registered");
  }

  private int pendingTransfers(ServerProcess admin) throws Exception {
    return get(admin, "/admin/cluster").path("pendingTransfers").size();
  }

  private JsonNode get(ServerProcess admin, String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(admin.adminEndpoint().resolve(path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private void post(ServerProcess admin, String path, String body) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(admin.adminEndpoint().resolve(path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isBetween(200, 202);
  }
}
