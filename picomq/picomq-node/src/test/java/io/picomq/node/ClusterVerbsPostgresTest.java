package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.ListenerProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Creates, rebalance and drain between two real nodes in this JVM, on a fresh database of the
 * machine's Postgres ({@code PICOMQ_PG_URL}) and one {@code file://} bucket, with their real
 * liveness rows. The streams are closed (their node restarted cleanly), so each transfer completes
 * at once and the test needs no handoff of an open stream.
 */
class ClusterVerbsPostgresTest {
  private static final String URL = System.getenv("PICOMQ_PG_URL");
  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the two-node admin verb tests are SKIPPED";

  @TempDir Path dir;
  private final AdminHttp http = new AdminHttp();
  private final List<Node> nodes = new ArrayList<>();
  private String database;

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @AfterEach
  void stopNodesAndDropTheDatabase() throws SQLException {
    nodes.forEach(node -> node.stop(Duration.ZERO));
    if (database != null) {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  @Test
  void rebalanceSpreadsClosedStreamsAndDrainEmptiesANode() throws Exception {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    database = "verbs_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    execute("CREATE DATABASE " + database);
    Node one = start(1, 1, 1);
    // Node 2 joins without slots, so the creates below are all placed on node 1.
    Node two = start(2, 1, 0);
    String data = "http://127.0.0.1:" + one.address().getPort();
    for (int i = 0; i < 6; i++) {
      assertThat(http.send("PUT", data + "/r/" + i, "").statusCode()).isEqualTo(201);
    }
    // A clean restart closes node 1's streams: they stay on node 1, and any node may open them.
    one.stop(Duration.ofSeconds(1));
    nodes.remove(one);
    one = start(1, 2, 1);
    String admin1 = admin(one);
    String admin2 = admin(two);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> state(admin1, 2).equals("live") && state(admin1, 1).equals("live"));

    // Node 2 gets its slot: rebalancing moves half of node 1's streams to it.
    assertThat(http.send("POST", admin1 + "/admin/nodes/2", "{\"slots\": 1}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> rebalanced = http.send("POST", admin1 + "/admin/rebalance", "{}");

    assertThat(rebalanced.statusCode()).as(rebalanced.body()).isEqualTo(202);
    JsonNode moves = AdminHttp.json(rebalanced).path("transfers");
    // Highest stream id first: the last three created.
    assertThat(moves.findValuesAsText("stream")).containsExactly("/r/5", "/r/4", "/r/3");
    assertThat(moves.findValuesAsText("state")).containsOnly("completed");
    assertThat(moves.findValuesAsText("toNode")).containsOnly("2");
    assertThat(http.send("GET", admin1 + "/admin/streams/r/4", null).body())
        .contains("\"owner\":2");
    // Node 2 applies the same log: it sees the moves too.
    await().atMost(Duration.ofSeconds(10)).until(() -> placed(admin2, 2) == 3);
    assertThat(placed(admin2, 1)).isEqualTo(3);
    assertThat(AdminHttp.json(http.send("POST", admin1 + "/admin/rebalance", "")).path("transfers"))
        .isEmpty();

    HttpResponse<String> drained = http.send("POST", admin2 + "/admin/drain", "{\"node\": 2}");

    assertThat(drained.statusCode()).as(drained.body()).isEqualTo(202);
    JsonNode drain = AdminHttp.json(drained);
    assertThat(drain.path("previousSlots").asInt()).isEqualTo(1);
    assertThat(drain.path("transfers").findValuesAsText("stream"))
        .containsExactly("/r/3", "/r/4", "/r/5");
    assertThat(drain.path("transfers").findValuesAsText("toNode")).containsOnly("1");
    assertThat(drain.path("refused")).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> placed(admin1, 2) == 0);
    assertThat(
            AdminHttp.byNodeId(
                    AdminHttp.json(http.send("GET", admin1 + "/admin/nodes", null)).path("nodes"),
                    2)
                .path("slots")
                .asInt())
        .isZero();

    // Node 2 has 0 slots now: node 1 has nowhere to go, and keeps its slots.
    HttpResponse<String> nowhere = http.send("POST", admin1 + "/admin/drain", "{\"node\": 1}");
    assertThat(nowhere.statusCode()).isEqualTo(409);
    assertThat(nowhere.body()).contains("\"error\":\"no_target\"");
    assertThat(
            AdminHttp.byNodeId(
                    AdminHttp.json(http.send("GET", admin1 + "/admin/nodes", null)).path("nodes"),
                    1)
                .path("slots")
                .asInt())
        .isEqualTo(1);
  }

  /**
   * A create of a name this node has not seen proposes at once (no catch-up with the log first):
   * racing creates of the same names through both nodes must still give each name one stream,
   * created once, every other create answered as a repeat of it.
   */
  @Test
  void racingCreatesThroughTwoNodesGiveEachNameOneStream() throws Exception {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    database = "creates_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    execute("CREATE DATABASE " + database);
    Node one = start(1, 1, 1);
    Node two = start(2, 1, 1);
    List<String> endpoints =
        List.of(
            "http://127.0.0.1:" + one.address().getPort(),
            "http://127.0.0.1:" + two.address().getPort());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> state(admin(one), 2).equals("live") && state(admin(two), 1).equals("live"));
    int names = 60;
    List<CompletableFuture<List<Integer>>> clients = new ArrayList<>();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < 6; c++) {
        String endpoint = endpoints.get(c % 2);
        clients.add(
            CompletableFuture.supplyAsync(
                () -> {
                  List<Integer> statuses = new ArrayList<>();
                  for (int n = 0; n < names; n++) {
                    statuses.add(createAsAClient(endpoint + "/race/" + n));
                  }
                  return statuses;
                },
                threads));
      }
    }
    int[] created = new int[names];
    for (CompletableFuture<List<Integer>> client : clients) {
      List<Integer> statuses = client.join();
      for (int n = 0; n < names; n++) {
        assertThat(statuses.get(n)).as("create of /race/" + n).isIn(200, 201);
        created[n] += statuses.get(n) == 201 ? 1 : 0;
      }
    }
    assertThat(created).as("201s per name").containsOnly(1);
  }

  /**
   * A create as a client makes it: follows {@code 307}s, and sends again after a {@code 503} (a
   * racing create may meet the stream while it opens on the other node).
   */
  private int createAsAClient(String url) {
    try {
      String target = url;
      for (int attempt = 0; attempt < 200; attempt++) {
        HttpResponse<String> answer = http.send("PUT", target, "");
        switch (answer.statusCode()) {
          case 307 -> target = answer.headers().firstValue("Location").orElseThrow();
          case 503 -> LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
          default -> {
            return answer.statusCode();
          }
        }
      }
      throw new AssertionError("no answer but 307 or 503 for " + url);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private Node start(int nodeId, long nodeEpoch, int slots) throws Exception {
    URI server = URI.create(URL);
    Node node =
        Node.start(
            NodeConfig.builder()
                .nodeId(nodeId)
                .nodeEpoch(nodeEpoch)
                .slots(slots)
                .listen("127.0.0.1:0")
                .adminListen("127.0.0.1:0")
                .shutdownDrain(Duration.ofSeconds(1))
                .metaUrl("postgres://" + server.getRawAuthority() + "/" + database)
                .storage("0@file://" + dir.resolve("objects"))
                .protocol(ListenerProtocol.PICO)
                .build(),
            Clock.systemUTC());
    nodes.add(node);
    return node;
  }

  private static String admin(Node node) {
    return "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
  }

  private JsonNode node(String admin, int nodeId) throws Exception {
    return AdminHttp.byNodeId(
        AdminHttp.json(http.send("GET", admin + "/admin/nodes", null)).path("nodes"), nodeId);
  }

  private String state(String admin, int nodeId) throws Exception {
    return node(admin, nodeId).path("state").asText();
  }

  private long placed(String admin, int nodeId) throws Exception {
    return node(admin, nodeId).path("streams").asLong();
  }

  /** Runs {@code sql} on the database {@code PICOMQ_PG_URL} names, outside any transaction. */
  private static void execute(String sql) throws SQLException {
    URI url = URI.create(URL);
    String userInfo = url.getUserInfo() == null ? "" : url.getUserInfo();
    String[] credentials = userInfo.split(":", 2);
    try (Connection connection =
            DriverManager.getConnection(
                "jdbc:postgresql://" + url.getHost() + ":" + url.getPort() + url.getPath(),
                credentials[0],
                credentials.length > 1 ? credentials[1] : null);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
