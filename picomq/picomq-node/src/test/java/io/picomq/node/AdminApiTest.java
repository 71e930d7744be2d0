package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API's metrics, transfer and nodes endpoints, over real sockets against a whole node.
 */
class AdminApiTest {
  // A sample line of the Prometheus text format: name, optional labels, a float value.
  private static final Pattern SAMPLE =
      Pattern.compile(
          "[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\",?)*\\})?"
              + " (-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)( -?[0-9]+)?");
  private static final Pattern COMMENT =
      Pattern.compile("# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* \\w+)");

  @TempDir Path dir;
  private final AdminHttp http = new AdminHttp();
  private Node node;
  private String base;
  private String admin;

  static NodeConfig config(Path dir, long epoch, ListenerProtocol protocol) {
    return NodeConfig.builder()
        .nodeEpoch(epoch)
        .listen("127.0.0.1:0")
        .adminListen("127.0.0.1:0")
        .backlog(128)
        .shutdownDrain(Duration.ofSeconds(1))
        .metaUrl("sqlite:" + dir.resolve("meta.db"))
        .storage("0@file://" + dir.resolve("objects"))
        .protocol(protocol)
        .longPollTimeout(Duration.ofSeconds(2))
        .sseMaxDuration(Duration.ofSeconds(5))
        .build();
  }

  @BeforeEach
  void start() throws Exception {
    node = Node.start(config(dir, 1, ListenerProtocol.PICO), Clock.systemUTC());
    base = "http://127.0.0.1:" + node.address().getPort();
    admin = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
  }

  @AfterEach
  void stop() {
    node.stop(Duration.ZERO);
  }

  @Test
  void metricsAreValidPrometheusTextWithEngineAndRequestMeters() throws Exception {
    assertThat(send("PUT", base + "/m/s", "").statusCode()).isEqualTo(201);
    for (int i = 0; i < 3; i++) {
      assertThat(send("POST", base + "/m/s", "record " + i).statusCode()).isBetween(200, 204);
    }
    assertThat(send("GET", base + "/m/s?seq=0", null).statusCode()).isEqualTo(200);
    assertThat(send("GET", base + "/m/missing?seq=0", null).statusCode()).isEqualTo(404);

    HttpResponse<String> scraped = send("GET", admin + "/metrics", null);

    assertThat(scraped.statusCode()).isEqualTo(200);
    assertThat(scraped.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("text/plain; version=0.0.4");
    List<String> lines = scraped.body().lines().filter(line -> !line.isBlank()).toList();
    assertThat(lines)
        .allSatisfy(
            line ->
                assertThat(SAMPLE.matcher(line).matches() || COMMENT.matcher(line).matches())
                    .as("a Prometheus text line: %s", line)
                    .isTrue());
    assertThat(lines).anyMatch(line -> line.startsWith("s3stream_"));
    // The timer counts requests by protocol, method and status, never by stream name.
    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("picomq_http_requests_seconds_count{")
                    .contains("method=\"POST\"", "protocol=\"pico\"", "status=\"20")
                    .endsWith(" 3"));
    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("picomq_http_requests_seconds_count{")
                    .contains("method=\"GET\"", "status=\"404\""));
    assertThat(lines).anyMatch(line -> line.startsWith("picomq_http_requests_seconds_sum{"));
    assertThat(scraped.body()).doesNotContain("m/s", "m/missing");
  }

  @Test
  void transferIsValidatedAndAnsweredClearlyOnOneNode() throws Exception {
    assertThat(send("PUT", base + "/t/s", "").statusCode()).isEqualTo(201);
    String transfer = admin + "/admin/transfer";

    HttpResponse<String> self = send("POST", transfer, "{\"stream\": \"/t/s\", \"toNode\": 1}");
    assertThat(self.statusCode()).isEqualTo(409);
    assertThat(self.body()).contains("\"error\":\"already_on_node\"");

    HttpResponse<String> unknownNode =
        send("POST", transfer, "{\"stream\": \"/t/s\", \"toNode\": 7}");
    assertThat(unknownNode.statusCode()).isEqualTo(404);
    assertThat(unknownNode.body()).contains("\"error\":\"unknown_node\"", "node 7");

    HttpResponse<String> unknownStream =
        send("POST", transfer, "{\"stream\": \"/t/nope\", \"toNode\": 1}");
    assertThat(unknownStream.statusCode()).isEqualTo(404);
    assertThat(unknownStream.body()).contains("\"error\":\"stream_not_found\"", "/t/nope");

    for (String bad :
        List.of(
            "not json", "{}", "{\"stream\": \"/t/s\"}", "{\"stream\": 3, \"toNode\": 1}", "[]")) {
      HttpResponse<String> answer = send("POST", transfer, bad);
      assertThat(answer.statusCode()).as(bad).isEqualTo(400);
      assertThat(answer.body()).as(bad).contains("\"error\":\"bad_request\"");
    }
    assertThat(send("GET", transfer, null).statusCode()).isEqualTo(405);
    // Nothing was proposed: the stream stays where it was, with no pending transfer.
    assertThat(send("GET", admin + "/admin/streams/t/s", null).body())
        .contains("\"owner\":1", "\"pendingTransferTo\":null");
  }

  @Test
  void aTransferToANodeThatNeverRenewsIsRecordedThenWithdrawn() throws Exception {
    assertThat(send("PUT", base + "/t/open", "").statusCode()).isEqualTo(201);
    assertThat(send("POST", base + "/t/open", "x").statusCode()).isBetween(200, 204);
    // A second node registers in the metadata log (as its own process would; one SQLite file
    // serves one process, so this node proposes the registration on its behalf). It never
    // renews a liveness row, so it is presumed dead.
    assertThat(node.plane().propose(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join())
        .isInstanceOf(Result.Ok.class);

    HttpResponse<String> pending =
        send("POST", admin + "/admin/transfer", "{\"stream\": \"/t/open\", \"toNode\": 2}");

    assertThat(pending.statusCode()).isEqualTo(202);
    assertThat(pending.body()).contains("\"fromNode\":1", "\"toNode\":2", "\"state\":\"pending\"");
    // The transfers watcher falls back: the stream stays here and keeps taking appends.
    Awaitility.await("the transfer to a dead node withdrawn")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                send("GET", admin + "/admin/cluster", null)
                    .body()
                    .contains("\"pendingTransfers\":[]"));
    assertThat(send("GET", admin + "/admin/streams/t/open", null).body())
        .contains("\"owner\":1", "\"pendingTransferTo\":null");
    assertThat(send("POST", base + "/t/open", "y").statusCode()).isBetween(200, 204);
  }

  @Test
  void cancelWithdrawsAPendingTransferByNameAndTheViewsShowIt() throws Exception {
    // Two more nodes registered by this one on their behalf (see above), as processes started
    // after this node's last liveness read: presumed alive, though nothing runs them. With no
    // slots here, the create is placed on node 2, which the stream is then opened on: a transfer
    // from node 2 to node 3 stays pending, since neither process exists to carry it out.
    long later = Clock.systemUTC().millis() + 3_600_000;
    node.plane()
        .proposeAccepted(new Command.RegisterNode(2, later, "http://127.0.0.1:1", 1))
        .join();
    node.plane()
        .proposeAccepted(new Command.RegisterNode(3, later, "http://127.0.0.1:2", 1))
        .join();
    assertThat(send("POST", admin + "/admin/nodes/1", "{\"slots\": 0}").statusCode())
        .isEqualTo(200);
    assertThat(send("PUT", base + "/t/c", "").statusCode()).isEqualTo(201);
    long streamId =
        AdminHttp.json(send("GET", admin + "/admin/streams/t/c", null)).path("streamId").asLong();
    node.plane().proposeAccepted(new Command.OpenStream(streamId, 2, later)).join();
    assertThat(send("POST", admin + "/admin/transfer", "{\"stream\": \"/t/c\", \"toNode\": 3}"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(202);
    JsonNode pending =
        AdminHttp.json(send("GET", admin + "/admin/cluster", null)).path("pendingTransfers");
    assertThat(pending).hasSize(1);
    assertThat(pending.get(0).path("stream").asText()).isEqualTo("/t/c");
    JsonNode source =
        AdminHttp.byNodeId(
            AdminHttp.json(send("GET", admin + "/admin/nodes", null)).path("nodes"), 2);
    assertThat(source.path("streams").asLong()).isEqualTo(1);
    assertThat(source.path("openStreams").asLong()).isEqualTo(1);
    String cancel = admin + "/admin/transfer/cancel";

    HttpResponse<String> cancelled = send("POST", cancel, "{\"stream\": \"/t/c\"}");

    assertThat(cancelled.statusCode()).isEqualTo(200);
    JsonNode answer = AdminHttp.json(cancelled);
    assertThat(answer.path("stream").asText()).isEqualTo("/t/c");
    assertThat(answer.path("streamId").asLong())
        .isEqualTo(pending.get(0).path("streamId").asLong());
    assertThat(answer.path("state").asText()).isEqualTo("cancelled");
    assertThat(send("GET", admin + "/admin/streams/t/c", null).body())
        .contains("\"owner\":2", "\"pendingTransferTo\":null");
    assertThat(
            AdminHttp.json(send("POST", cancel, "{\"stream\": \"/t/c\"}")).path("state").asText())
        .isEqualTo("none");
    HttpResponse<String> unknown = send("POST", cancel, "{\"stream\": \"/t/nope\"}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"error\":\"stream_not_found\"");
    for (String bad :
        List.of("", "not json", "{}", "[]", "{\"stream\": 1}", "{\"streamId\": -1}")) {
      HttpResponse<String> refused = send("POST", cancel, bad);
      assertThat(refused.statusCode()).as(bad).isEqualTo(400);
      assertThat(refused.body()).as(bad).contains("\"error\":\"bad_request\"");
    }
    assertThat(send("GET", cancel, null).statusCode()).isEqualTo(405);
  }

  @Test
  void drainAndRebalanceOnOneLiveNodeSayWhyNothingMoves() throws Exception {
    assertThat(send("PUT", base + "/d/s", "").statusCode()).isEqualTo(201);
    // Registered, but without a liveness row: presumed dead, so it cannot take streams.
    node.plane().proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join();
    String drain = admin + "/admin/drain";
    String rebalance = admin + "/admin/rebalance";

    HttpResponse<String> nowhere = send("POST", drain, "{\"node\": 1}");

    assertThat(nowhere.statusCode()).isEqualTo(409);
    assertThat(nowhere.body()).contains("\"error\":\"no_target\"");
    JsonNode nodes = AdminHttp.json(send("GET", admin + "/admin/nodes", null)).path("nodes");
    assertThat(AdminHttp.byNodeId(nodes, 1).path("slots").asInt()).isEqualTo(1);
    HttpResponse<String> unknown = send("POST", drain, "{\"node\": 7}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"error\":\"unknown_node\"", "node 7");
    for (String bad :
        List.of("", "x", "{}", "{\"node\": -1}", "{\"node\": \"1\"}", "{\"node\": 1.5}")) {
      HttpResponse<String> refused = send("POST", drain, bad);
      assertThat(refused.statusCode()).as(bad).isEqualTo(400);
      assertThat(refused.body()).as(bad).contains("\"error\":\"bad_request\"");
    }

    HttpResponse<String> balanced = send("POST", rebalance, "");
    assertThat(balanced.statusCode()).isEqualTo(202);
    assertThat(balanced.body()).isEqualTo("{\"by\":\"streams\",\"transfers\":[],\"refused\":[]}");
    HttpResponse<String> bytes = send("POST", rebalance, "{\"by\": \"bytes\"}");
    assertThat(bytes.statusCode()).isEqualTo(400);
    assertThat(bytes.body()).contains("\"error\":\"unsupported\"");
    assertThat(send("GET", drain, null).statusCode()).isEqualTo(405);
    assertThat(send("GET", rebalance, null).statusCode()).isEqualTo(405);
  }

  @Test
  void drainMovesANodesClosedStreamsAtOnceAndZeroesItsSlots() throws Exception {
    assertThat(send("PUT", base + "/d/a", "").statusCode()).isEqualTo(201);
    assertThat(send("PUT", base + "/d/b", "").statusCode()).isEqualTo(201);
    // A clean restart closes both streams; they stay on node 1 until a request opens them.
    node.stop(Duration.ofSeconds(1));
    node = Node.start(config(dir, 2, ListenerProtocol.PICO), Clock.systemUTC());
    admin = "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort();
    node.plane().proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 2)).join();
    for (String name : List.of("/d/a", "/d/b")) {
      HttpResponse<String> moved =
          send("POST", admin + "/admin/transfer", "{\"stream\": \"" + name + "\", \"toNode\": 2}");
      assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
      assertThat(moved.body()).contains("\"state\":\"completed\"");
    }

    HttpResponse<String> drained = send("POST", admin + "/admin/drain", "{\"node\": 2}");

    assertThat(drained.statusCode()).isEqualTo(202);
    JsonNode answer = AdminHttp.json(drained);
    assertThat(answer.path("node").asInt()).isEqualTo(2);
    assertThat(answer.path("previousSlots").asInt()).isEqualTo(2);
    assertThat(answer.path("slots").asInt()).isZero();
    assertThat(answer.path("refused")).isEmpty();
    assertThat(answer.path("transfers").findValuesAsText("stream")).containsExactly("/d/a", "/d/b");
    assertThat(answer.path("transfers"))
        .allSatisfy(
            move -> {
              assertThat(move.path("fromNode").asInt()).isEqualTo(2);
              assertThat(move.path("toNode").asInt()).isEqualTo(1);
              assertThat(move.path("state").asText()).isEqualTo("completed");
            });
    assertThat(send("GET", admin + "/admin/streams/d/b", null).body()).contains("\"owner\":1");
    JsonNode two =
        AdminHttp.byNodeId(
            AdminHttp.json(send("GET", admin + "/admin/nodes", null)).path("nodes"), 2);
    assertThat(two.path("slots").asInt()).isZero();
    assertThat(two.path("streams").asInt()).isZero();
  }

  @Test
  void nodesShowTheirLiveness() throws Exception {
    // A node registered in the log that never renews a liveness row (its process is gone).
    assertThat(node.plane().propose(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join())
        .isInstanceOf(Result.Ok.class);

    HttpResponse<String> answer = send("GET", admin + "/admin/nodes", null);

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode nodes = new ObjectMapper().readTree(answer.body()).path("nodes");
    JsonNode self = AdminHttp.byNodeId(nodes, 1);
    assertThat(self.path("state").asText()).isEqualTo("live");
    assertThat(self.path("ttlMs").asLong()).isEqualTo(10_000);
    // Renewed every 2.5 s: never longer ago than that, give or take a slow machine.
    assertThat(self.path("renewedMsAgo").asLong()).isBetween(0L, 5_000L);
    JsonNode gone = AdminHttp.byNodeId(nodes, 2);
    assertThat(gone.path("state").asText()).isEqualTo("dead");
    assertThat(gone.path("renewedMsAgo").isNull()).isTrue();
    assertThat(gone.path("ttlMs").isNull()).isTrue();
  }

  @Test
  void aDeadNodeHoldingAStreamIsTakenOverByThisOne() throws Exception {
    // Node 2 registered and opened a stream, but never renews a liveness row: it is dead.
    node.plane().proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join();
    long streamId =
        ((Outcome.StreamsCreated) node.plane().proposeAccepted(new Command.CreateStream()).join())
            .firstStreamId();
    node.plane().proposeAccepted(new Command.OpenStream(streamId, 2, 1)).join();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode nodes =
                  new ObjectMapper()
                      .readTree(send("GET", admin + "/admin/nodes", null).body())
                      .path("nodes");
              assertThat(AdminHttp.byNodeId(nodes, 2).path("takenOverBy").asInt()).isEqualTo(1);
              assertThat(AdminHttp.byNodeId(nodes, 2).path("state").asText()).isEqualTo("dead");
              assertThat(AdminHttp.byNodeId(nodes, 1).path("takenOverBy").isNull()).isTrue();
            });
    // The takeover closed node 2's stream at its recovered end: any node may open it now.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !node.plane().state().stream(streamId).orElseThrow().isOpen());
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
    return http.send(method, url, body);
  }
}
