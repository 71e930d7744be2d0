package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.routing.NodeLivenessCheck;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drain, rebalance and cancel verbs against a real metadata plane (SQLite in memory) with no
 * node around it: nodes 2 and 3 are registered through the plane as their processes would register
 * themselves, and which nodes are presumed dead is this test's choice. Nothing runs the handoff, so
 * an open stream's transfer stays pending: these tests check what the verbs propose and answer, not
 * the move itself (AdminApiTest and ClusterVerbsPostgresTest go through real nodes).
 */
class TransferVerbsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MetadataPlane plane;
  private volatile NodeLivenessCheck liveness = NodeLivenessCheck.NONE_DEAD;
  private TransferVerbs verbs;
  private boolean closed;

  @BeforeEach
  void openPlane() throws Exception {
    plane =
        MetadataPlane.open(
            "sqlite::memory:", new NodeIdentity(1, 1, "http://one", 1), Clock.systemUTC());
    plane.start();
    verbs = new TransferVerbs(plane, () -> liveness);
    propose(new Command.RegisterNode(2, 1, "http://two", 1));
    propose(new Command.RegisterNode(3, 1, "http://three", 1));
  }

  @AfterEach
  void closePlane() {
    if (!closed) {
      plane.close();
    }
  }

  @Test
  void aLogThatTakesNoProposalFailsTheJoinForTheListenerToAnswer503() {
    long stream = onNode(2, 1).getFirst();
    plane.close();
    closed = true;

    assertThatThrownBy(
            () ->
                verbs.answer(
                    TransferVerbs.CANCEL,
                    ("{\"streamId\": " + stream + "}").getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(CompletionException.class);
  }

  @Test
  void drainZeroesSlotsMovesEachStreamAndListsTheOnesAlreadyMoving() {
    List<Long> streams = onNode(2, 4);
    long open = streams.get(2);
    long moving = streams.get(3);
    propose(new Command.OpenStream(open, 2, 1));
    propose(new Command.OpenStream(moving, 2, 1));
    propose(new Command.TransferStream(moving, 3));

    JsonNode answer = answer(202, TransferVerbs.DRAIN, "{\"node\": 2}");

    assertThat(answer.path("node").asInt()).isEqualTo(2);
    assertThat(answer.path("previousSlots").asInt()).isEqualTo(1);
    assertThat(answer.path("slots").asInt()).isZero();
    // Targets by placed/slots, ties to the lowest id: 0/1 vs 0/1 -> 1; 1/1 vs 0/1 -> 3; then 1.
    assertThat(answer.path("transfers").toString())
        .isEqualTo(
            "["
                + move(streams.get(0), 2, 1, -1, "completed")
                + ","
                + move(streams.get(1), 2, 3, -1, "completed")
                + ","
                + move(open, 2, 1, 0, "pending")
                + "]");
    assertThat(answer.path("refused").toString())
        .isEqualTo(
            "[{\"stream\":null,\"streamId\":"
                + moving
                + ",\"reason\":\"transfer_pending\",\"message\":\"already moving to node 3\"}]");
    assertThat(plane.state().nodes().get(2).slots()).isZero();
    assertThat(plane.state().stream(streams.get(0)).orElseThrow().nodeId()).isEqualTo(1);
    assertThat(plane.state().pendingTransfers().values())
        .containsExactly(new PendingTransfer(open, 2, 1, 0), new PendingTransfer(moving, 2, 3, 0));
  }

  @Test
  void drainWithNowhereToGoChangesNothing() {
    onNode(1, 1);
    liveness = (nodeId, nodeEpoch) -> nodeId != 1;

    JsonNode refused = answer(409, TransferVerbs.DRAIN, "{\"node\": 1}");

    assertThat(refused.path("error").asText()).isEqualTo("no_target");
    assertThat(refused.path("message").asText()).contains("node 1 keeps its slots");
    assertThat(plane.state().nodes().get(1).slots()).isEqualTo(1);
    assertThat(plane.state().pendingTransfers()).isEmpty();
    assertThat(answer(404, TransferVerbs.DRAIN, "{\"node\": 9}").path("error").asText())
        .isEqualTo("unknown_node");
  }

  @Test
  void rebalanceProposesItsPlanAndThenHasNothingLeftToDo() {
    List<Long> streams = onNode(1, 6);

    JsonNode answer = answer(202, TransferVerbs.REBALANCE, "");

    assertThat(answer.path("by").asText()).isEqualTo("streams");
    assertThat(answer.path("transfers").toString())
        .isEqualTo(
            "["
                + move(streams.get(5), 1, 2, -1, "completed")
                + ","
                + move(streams.get(4), 1, 3, -1, "completed")
                + ","
                + move(streams.get(3), 1, 2, -1, "completed")
                + ","
                + move(streams.get(2), 1, 3, -1, "completed")
                + "]");
    assertThat(answer.path("refused")).isEmpty();
    assertThat(plane.state().nodes().values())
        .allSatisfy(node -> assertThat(node.placedStreams()).isEqualTo(2));
    assertThat(answer(202, TransferVerbs.REBALANCE, "{\"by\": \"streams\"}").path("transfers"))
        .isEmpty();
  }

  @Test
  void rebalanceLeavesAPresumedDeadNodeOut() {
    onNode(1, 4);
    liveness = (nodeId, nodeEpoch) -> nodeId == 3;

    JsonNode answer = answer(202, TransferVerbs.REBALANCE, "{}");

    assertThat(answer.path("transfers")).hasSize(2);
    assertThat(answer.path("transfers").findValuesAsText("toNode")).containsOnly("2");
  }

  @Test
  void rebalanceByBytesIsUnsupportedAndOtherMeasuresAreBadRequests() {
    assertThat(answer(400, TransferVerbs.REBALANCE, "{\"by\": \"bytes\"}").path("error").asText())
        .isEqualTo("unsupported");
    for (String bad : List.of("{\"by\": \"records\"}", "{\"by\": 3}", "[]", "nope")) {
      assertThat(answer(400, TransferVerbs.REBALANCE, bad).path("error").asText())
          .as(bad)
          .isEqualTo("bad_request");
    }
  }

  @Test
  void cancelByStreamIdWithdrawsThePendingTransferOnce() {
    long stream = onNode(2, 1).getFirst();
    propose(new Command.OpenStream(stream, 2, 1));
    propose(new Command.TransferStream(stream, 3));
    String body = "{\"streamId\": " + stream + "}";

    assertThat(answer(200, TransferVerbs.CANCEL, body).toString())
        .isEqualTo("{\"stream\":null,\"streamId\":" + stream + ",\"state\":\"cancelled\"}");
    assertThat(plane.state().pendingTransfers()).isEmpty();
    assertThat(plane.state().stream(stream).orElseThrow().nodeId()).isEqualTo(2);
    assertThat(answer(200, TransferVerbs.CANCEL, body).path("state").asText()).isEqualTo("none");
    assertThat(answer(404, TransferVerbs.CANCEL, "{\"streamId\": 999}").path("error").asText())
        .isEqualTo("stream_not_found");
  }

  private JsonNode answer(int status, String path, String body) {
    TransferVerbs.Answer answer = verbs.answer(path, body.getBytes(StandardCharsets.UTF_8));
    JsonNode json = JSON.valueToTree(answer.body());
    assertThat(answer.status()).as("%s %s -> %s", path, body, json).isEqualTo(status);
    return json;
  }

  private static String move(long streamId, int from, int to, long epoch, String state) {
    return "{\"stream\":null,\"streamId\":"
        + streamId
        + ",\"fromNode\":"
        + from
        + ",\"toNode\":"
        + to
        + ",\"epoch\":"
        + epoch
        + ",\"state\":\""
        + state
        + "\"}";
  }

  /** Creates {@code count} closed streams on {@code nodeId}; returns their ids in order. */
  private List<Long> onNode(int nodeId, int count) {
    long first =
        ((Outcome.StreamsCreated) propose(new Command.CreateStreams(count))).firstStreamId();
    List<Long> ids = new ArrayList<>();
    for (long id = first; id < first + count; id++) {
      propose(new Command.TransferStream(id, nodeId));
      ids.add(id);
    }
    return ids;
  }

  private Outcome propose(Command command) {
    return plane.proposeAccepted(command).join();
  }
}
