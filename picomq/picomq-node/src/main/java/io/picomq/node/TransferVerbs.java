package io.picomq.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.routing.NodeLivenessCheck;
import io.picomq.server.service.Registry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The admin API's verbs that move streams: {@code POST /admin/transfer}, {@code
 * /admin/transfer/cancel}, {@code /admin/drain} and {@code /admin/rebalance}. Each proposes
 * commands through the metadata plane and answers with what the log made of them; the handoff of an
 * open stream (its owner closing it, the target opening it) is the cluster's job and happens after
 * the answer. Drain and rebalance plan their moves with {@link ClusterPlans}.
 *
 * <p>Runs on the admin listener's virtual threads, so it joins proposals in place. A proposal the
 * log cannot take (stopped, closed, overloaded) fails the join with a {@link CompletionException},
 * which the listener answers 503 {@code metadata_unavailable}; within drain and rebalance, such a
 * move is listed as refused and the others go on.
 */
final class TransferVerbs {
  static final String TRANSFER = "/admin/transfer";
  static final String CANCEL = "/admin/transfer/cancel";
  static final String DRAIN = "/admin/drain";
  static final String REBALANCE = "/admin/rebalance";

  /** Every path this class answers, all {@code POST} only. */
  static final Set<String> PATHS = Set.of(TRANSFER, CANCEL, DRAIN, REBALANCE);

  /**
   * Moves proposed at once by drain and rebalance. The log's proposal queue is bounded and shared
   * with the data path, so a drain of thousands of streams goes in windows rather than all at once.
   */
  private static final int PROPOSAL_WINDOW = 64;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A status and the JSON body to send with it. */
  record Answer(int status, Object body) {}

  private final MetadataPlane plane;
  private final Supplier<NodeLivenessCheck> liveness;

  /**
   * @param liveness a fresh reading of which node processes are presumed dead, per request: what
   *     {@code GET /admin/nodes} shows as {@code dead}
   */
  TransferVerbs(MetadataPlane plane, Supplier<NodeLivenessCheck> liveness) {
    this.plane = plane;
    this.liveness = liveness;
  }

  /** Answers a {@code POST} to one of {@link #PATHS}. */
  Answer answer(String path, byte[] body) {
    Optional<JsonNode> json = parse(body, path.equals(REBALANCE));
    if (json.isEmpty()) {
      return error(400, "bad_request", "the body is not a JSON object");
    }
    return switch (path) {
      case TRANSFER -> transfer(json.get());
      case CANCEL -> cancel(json.get());
      case DRAIN -> drain(json.get());
      case REBALANCE -> rebalance(json.get());
      default -> throw new IllegalArgumentException("no transfer verb at " + path);
    };
  }

  /**
   * {@code {"stream": name, "toNode": id}}: an open stream's transfer stays pending (202) until its
   * owner closes it and the target takes it over; a closed stream moves at once (200). Moving a
   * stream to the node that already serves it is refused with 409 {@code already_on_node}: nothing
   * would happen, and saying so is clearer than a silent success.
   */
  private Answer transfer(JsonNode body) {
    if (!isName(body.path("stream")) || !isNodeId(body.path("toNode"))) {
      return error(400, "bad_request", "expected {\"stream\": name, \"toNode\": id} with id >= 0");
    }
    String name = body.path("stream").asText();
    int toNode = body.path("toNode").asInt();
    MetadataState state = plane.state();
    Optional<StreamEntry> stream = named(state, name);
    if (stream.isEmpty()) {
      return streamNotFound(name);
    }
    if (!state.nodes().containsKey(toNode)) {
      return unknownNode(toNode);
    }
    long streamId = stream.get().streamId();
    if (stream.get().nodeId() == toNode && state.pendingTransfer(streamId).isEmpty()) {
      return error(
          409,
          "already_on_node",
          "stream " + name + " is already served by node " + toNode + "; nothing to move");
    }
    Result result = plane.propose(new Command.TransferStream(streamId, toNode)).join();
    if (result instanceof Result.Rejected rejected) {
      return rejection(rejected);
    }
    Outcome.TransferRecorded recorded = recorded(result);
    return new Answer(recorded.completed() ? 200 : 202, moved(name, recorded));
  }

  /**
   * {@code {"stream": name}} (or {@code {"streamId": id}} for a stream without a name): withdraws a
   * pending transfer; the stream stays with its source. 200 with {@code "state": "cancelled"}, or
   * {@code "none"} when nothing was pending.
   */
  private Answer cancel(JsonNode body) {
    MetadataState state = plane.state();
    String name;
    Optional<StreamEntry> stream;
    if (isName(body.path("stream"))) {
      name = body.path("stream").asText();
      stream = named(state, name);
    } else if (body.path("streamId").isIntegralNumber()
        && body.path("streamId").canConvertToLong()
        && body.path("streamId").asLong() >= 0) {
      stream = state.stream(body.path("streamId").asLong());
      name = stream.map(s -> Registry.namesById(state).get(s.streamId())).orElse(null);
    } else {
      return error(400, "bad_request", "expected {\"stream\": name} or {\"streamId\": id}");
    }
    if (stream.isEmpty()) {
      return name != null
          ? streamNotFound(name)
          : error(404, "stream_not_found", "no stream with id " + body.path("streamId").asLong());
    }
    long streamId = stream.get().streamId();
    Result result = plane.propose(new Command.CancelTransfer(streamId)).join();
    Outcome outcome;
    switch (result) {
      case Result.Rejected rejected -> {
        return rejection(rejected);
      }
      case Result.Ok ok -> outcome = ok.outcome();
      case Result.Redundant redundant -> outcome = redundant.outcome();
    }
    if (!(outcome instanceof Outcome.TransferCancelled cancelled)) {
      throw new IllegalStateException("CancelTransfer answered " + outcome);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("stream", name);
    answer.put("streamId", streamId);
    answer.put("state", cancelled.withdrawn() ? "cancelled" : "none");
    return new Answer(200, answer);
  }

  /**
   * {@code {"node": id}}: sets the node's slots to 0 (nothing new is placed there), then proposes a
   * transfer of each of its streams without a pending one, as {@link ClusterPlans#drain} planned.
   * When no other node can take streams, nothing is changed: 409 {@code no_target}.
   */
  private Answer drain(JsonNode body) {
    if (!isNodeId(body.path("node"))) {
      return error(400, "bad_request", "expected {\"node\": id} with id >= 0");
    }
    int nodeId = body.path("node").asInt();
    MetadataState state = plane.state();
    DrainPlan plan = ClusterPlans.drain(state, nodeId, liveness.get());
    return switch (plan) {
      case DrainPlan.UnknownNode unknown -> unknownNode(unknown.nodeId());
      case DrainPlan.NoTarget none ->
          error(
              409,
              "no_target",
              "no node but "
                  + none.nodeId()
                  + " can take streams (each other node has 0 slots, was taken over or is"
                  + " presumed dead); node "
                  + none.nodeId()
                  + " keeps its slots");
      case DrainPlan.Moves moves -> drainAnswer(state, moves);
    };
  }

  private Answer drainAnswer(MetadataState before, DrainPlan.Moves plan) {
    int nodeId = plan.nodeId();
    Result slotsSet = plane.propose(new Command.SetNodeSlots(nodeId, 0)).join();
    if (slotsSet instanceof Result.Rejected rejected) {
      return rejection(rejected);
    }
    Map<Long, String> names = Registry.namesById(before);
    List<Map<String, Object>> transfers = new ArrayList<>();
    List<Map<String, Object>> refused = new ArrayList<>();
    for (PendingTransfer pending : plan.alreadyMoving()) {
      refused.add(
          refusal(
              names,
              pending.streamId(),
              "transfer_pending",
              "already moving to node " + pending.toNodeId()));
    }
    proposeMoves(plan.moves(), names, transfers, refused);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("node", nodeId);
    answer.put("previousSlots", before.nodes().get(nodeId).slots());
    answer.put("slots", 0);
    answer.put("transfers", transfers);
    answer.put("refused", refused);
    return new Answer(202, answer);
  }

  /**
   * {@code {"by": "streams"}} (the default, also for an empty body): proposes the moves {@link
   * ClusterPlans#rebalance} planned. {@code "bytes"} is refused (400 {@code unsupported}): the
   * metadata holds no per-stream rate to balance by.
   */
  private Answer rebalance(JsonNode body) {
    JsonNode by = body.path("by");
    if (!by.isMissingNode() && !by.isTextual()) {
      return error(400, "bad_request", "expected {\"by\": \"streams\"}");
    }
    String measure = by.isMissingNode() ? "streams" : by.asText();
    if (measure.equals("bytes")) {
      return error(
          400,
          "unsupported",
          "rebalancing by bytes needs per-stream rates, which the cluster does not record; use"
              + " \"streams\"");
    }
    if (!measure.equals("streams")) {
      return error(400, "bad_request", "\"by\" must be \"streams\", not \"" + measure + "\"");
    }
    MetadataState state = plane.state();
    List<PlannedMove> moves = ClusterPlans.rebalance(state, liveness.get());
    List<Map<String, Object>> transfers = new ArrayList<>();
    List<Map<String, Object>> refused = new ArrayList<>();
    proposeMoves(moves, Registry.namesById(state), transfers, refused);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("by", measure);
    answer.put("transfers", transfers);
    answer.put("refused", refused);
    return new Answer(202, answer);
  }

  /**
   * Proposes {@code moves} a window at a time; each recorded transfer goes to {@code transfers},
   * each one the log refused (the state moved on since the plan) to {@code refused}.
   */
  private void proposeMoves(
      List<PlannedMove> moves,
      Map<Long, String> names,
      List<Map<String, Object>> transfers,
      List<Map<String, Object>> refused) {
    for (int from = 0; from < moves.size(); from += PROPOSAL_WINDOW) {
      List<PlannedMove> window =
          moves.subList(from, Math.min(moves.size(), from + PROPOSAL_WINDOW));
      List<CompletableFuture<Result>> proposed = new ArrayList<>(window.size());
      for (PlannedMove move : window) {
        proposed.add(plane.propose(new Command.TransferStream(move.streamId(), move.toNodeId())));
      }
      for (int i = 0; i < window.size(); i++) {
        long streamId = window.get(i).streamId();
        Result result;
        try {
          result = proposed.get(i).join();
        } catch (CompletionException e) {
          refused.add(refusal(names, streamId, "metadata_unavailable", unavailable(e)));
          continue;
        }
        if (result instanceof Result.Rejected rejected) {
          refused.add(refusal(names, streamId, code(rejected.reason()), rejected.message()));
        } else {
          transfers.add(moved(names.get(streamId), recorded(result)));
        }
      }
    }
  }

  private static String unavailable(CompletionException e) {
    return "the metadata log took no proposal: " + e.getCause().getMessage();
  }

  private static Outcome.TransferRecorded recorded(Result result) {
    Outcome outcome =
        switch (result) {
          case Result.Ok ok -> ok.outcome();
          case Result.Redundant redundant -> redundant.outcome();
          case Result.Rejected rejected ->
              throw new IllegalArgumentException("a rejection has no outcome: " + rejected);
        };
    if (!(outcome instanceof Outcome.TransferRecorded recorded)) {
      throw new IllegalStateException("TransferStream answered " + outcome);
    }
    return recorded;
  }

  private static Map<String, Object> moved(String name, Outcome.TransferRecorded recorded) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("stream", name);
    body.put("streamId", recorded.streamId());
    body.put("fromNode", recorded.fromNodeId());
    body.put("toNode", recorded.toNodeId());
    body.put("epoch", recorded.epoch());
    body.put("state", recorded.completed() ? "completed" : "pending");
    return body;
  }

  private static Map<String, Object> refusal(
      Map<Long, String> names, long streamId, String reason, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("stream", names.get(streamId));
    body.put("streamId", streamId);
    body.put("reason", reason);
    body.put("message", message);
    return body;
  }

  /** The stream a usable registry entry names, if the log still has it. */
  private static Optional<StreamEntry> named(MetadataState state, String name) {
    OptionalLong streamId = Registry.registeredStreamId(state, name);
    return streamId.isEmpty() ? Optional.empty() : state.stream(streamId.getAsLong());
  }

  private static Answer rejection(Result.Rejected rejected) {
    int status =
        switch (rejected.reason()) {
          case UNKNOWN_NODE, UNKNOWN_STREAM -> 404;
          default -> 409;
        };
    return error(status, code(rejected.reason()), rejected.message());
  }

  private static String code(RejectReason reason) {
    return reason.name().toLowerCase(Locale.ROOT);
  }

  private static Answer streamNotFound(String name) {
    return error(404, "stream_not_found", "no stream named " + name);
  }

  private static Answer unknownNode(int nodeId) {
    return error(404, "unknown_node", "node " + nodeId + " is not registered");
  }

  private static Answer error(int status, String code, String message) {
    return new Answer(status, Map.of("error", code, "message", message));
  }

  private static boolean isName(JsonNode value) {
    return value.isTextual() && !value.asText().isEmpty();
  }

  private static boolean isNodeId(JsonNode value) {
    return value.isIntegralNumber() && value.canConvertToInt() && value.asInt() >= 0;
  }

  /**
   * The body as a JSON object; empty when it is not one. An empty body counts as {@code {}} where
   * every field has a default ({@code emptyIsObject}).
   */
  private static Optional<JsonNode> parse(byte[] body, boolean emptyIsObject) {
    if (body.length == 0 || new String(body, StandardCharsets.UTF_8).isBlank()) {
      return emptyIsObject ? Optional.of(JSON.createObjectNode()) : Optional.empty();
    }
    try {
      JsonNode json = JSON.readTree(body);
      return json != null && json.isObject() ? Optional.of(json) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
