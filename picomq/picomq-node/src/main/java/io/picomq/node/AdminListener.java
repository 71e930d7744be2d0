package io.picomq.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.http.AccessControl;
import io.picomq.frontend.http.AccessRefusal;
import io.picomq.frontend.http.AllowedHosts;
import io.picomq.frontend.http.AllowedOrigins;
import io.picomq.frontend.http.ConnectionBudget;
import io.picomq.frontend.http.ConnectionLimits;
import io.picomq.frontend.http.CorsPolicy;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.HttpLimits;
import io.picomq.frontend.http.HttpListener;
import io.picomq.frontend.tls.ServerTls;
import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registry;
import io.picomq.sql.liveness.LivenessRow;
import io.picomq.sql.liveness.LivenessView;
import io.picomq.sql.liveness.NodeState;
import io.picomq.sql.log.View;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;

/**
 * The admin listener: health, readiness, metrics, the dashboard and views of the cluster, answered
 * from the node's in-memory metadata view (never from SQL), and the operator's verbs: slots here,
 * the stream moves (transfer, cancel, drain, rebalance) in {@link TransferVerbs}, and the tokens
 * ({@link TokenVerbs}). With access control on, every request but {@code /health} and {@code
 * /ready} needs a token for the admin audience ({@link AdminNeeds}); without it, bind it to
 * loopback.
 *
 * <p>What keeps a web page the operator opens from using it: writes take JSON only ({@link
 * JsonWrites}), the listener answers only its own host names ({@link AllowedHosts}, against DNS
 * rebinding), and no other origin may call it unless {@code --admin-cors-origins} says so.
 */
final class AdminListener implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String STREAMS_PATH = "/admin/streams/";
  private static final String NODES_PATH = "/admin/nodes/";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String CORS_SETTING = "--admin-cors-origins (PICO_ADMIN_CORS_ORIGINS)";

  private final Node node;
  private final TransferVerbs transfers;
  private final TokenVerbs tokens;

  /** Set once by {@link #start}; the listener that calls {@link #handle}. */
  private volatile HttpListener listener;

  private AdminListener(Node node, TokenVerbs tokens) {
    this.node = node;
    this.tokens = tokens;
    // Presumed dead as /admin/nodes shows it: no liveness row, or a lapsed one.
    this.transfers =
        new TransferVerbs(
            node.plane(),
            () -> {
              LivenessView liveness = node.liveness().view();
              return (nodeId, nodeEpoch) -> liveness.state(nodeId, nodeEpoch) == NodeState.DEAD;
            });
  }

  /**
   * Starts the admin listener on its own threads and with its own connection cap ({@code limits}),
   * so a flooded protocol listener leaves it able to answer.
   */
  static AdminListener start(
      String host,
      int port,
      Node node,
      ConnectionLimits limits,
      AllowedHosts allowedHosts,
      AllowedOrigins corsOrigins,
      Optional<ServerTls> tls,
      AccessControl access,
      TokenVerbs tokens)
      throws InterruptedException {
    AdminListener admin = new AdminListener(node, tokens);
    admin.listener =
        HttpListener.start(
            new HttpListener.Options(
                host,
                port,
                HttpLimits.DEFAULT,
                Map.of("X-Content-Type-Options", "nosniff"),
                1,
                64,
                limits,
                allowedHosts,
                new CorsPolicy(
                    corsOrigins,
                    CORS_SETTING,
                    "GET, POST, PUT, DELETE",
                    "Content-Type, Authorization",
                    ""),
                tls,
                access),
            admin::handle);
    return admin;
  }

  InetSocketAddress address() {
    return listener.address();
  }

  ConnectionBudget connections() {
    return listener.connections();
  }

  private void handle(Exchange exchange) {
    try {
      Optional<String> notJson = JsonWrites.refusal(exchange);
      if (notJson.isPresent()) {
        send(exchange, 415, error("unsupported_media_type", notJson.get()));
        return;
      }
      String path = exchange.path();
      if (TokenVerbs.serves(path)) {
        TransferVerbs.Answer answer = tokens.answer(exchange);
        HttpHeaders headers = new DefaultHttpHeaders();
        if (answer.status() == 401) {
          // The token was revoked between the check on the head and here.
          headers.set(HttpHeaderNames.WWW_AUTHENTICATE, AccessRefusal.CHALLENGE);
        }
        send(exchange, answer.status(), answer.body(), headers);
        return;
      }
      if (exchange.method().equals(HttpMethod.POST) && path.startsWith(NODES_PATH)) {
        setSlots(exchange, path.substring(NODES_PATH.length()));
        return;
      }
      if (TransferVerbs.PATHS.contains(path)) {
        if (exchange.method().equals(HttpMethod.POST)) {
          TransferVerbs.Answer answer = transfers.answer(path, exchange.body());
          send(exchange, answer.status(), answer.body());
        } else {
          send(exchange, 405, error("method_not_allowed", "POST " + path));
        }
        return;
      }
      if (!exchange.method().equals(HttpMethod.GET)) {
        send(
            exchange,
            405,
            error(
                "method_not_allowed",
                "only GET, POST /admin/nodes/{id} and POST to "
                    + String.join(", ", new TreeSet<>(TransferVerbs.PATHS))));
        return;
      }
      if (Dashboard.serve(exchange)) {
        return;
      }
      switch (path) {
        case "/health" -> send(exchange, 200, Map.of("status", "ok"));
        case "/metrics" -> metrics(exchange);
        case "/ready" -> ready(exchange);
        case "/admin/cluster" -> send(exchange, 200, cluster());
        case "/admin/nodes" ->
            send(
                exchange,
                200,
                Map.of("nodes", nodes(node.plane().state(), node.liveness().view())));
        default -> {
          if (path.startsWith(STREAMS_PATH) && path.length() > STREAMS_PATH.length()) {
            // The exchange's path is already percent-decoded.
            stream(exchange, path.substring(STREAMS_PATH.length() - 1));
          } else {
            send(exchange, 404, error("not_found", "no admin resource at " + path));
          }
        }
      }
    } catch (CompletionException e) {
      // Only proposals are joined here: the log is stopped, closed or overloaded.
      send(
          exchange,
          503,
          error(
              "metadata_unavailable",
              "the metadata log took no proposal: " + e.getCause().getMessage()));
    } catch (RuntimeException e) {
      send(exchange, 500, error("internal", String.valueOf(e.getMessage())));
    }
  }

  private void ready(Exchange exchange) {
    Optional<String> notReady = node.notReadyBecause();
    boolean ready = notReady.isEmpty();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ready", ready);
    notReady.ifPresent(why -> body.put("reason", why));
    body.put("nodeId", node.config().nodeId());
    body.put("nodeEpoch", node.config().nodeEpoch());
    send(exchange, ready ? 200 : 503, body);
  }

  private Map<String, Object> cluster() {
    MetadataPlane plane = node.plane();
    View<MetadataState> view = plane.view();
    MetadataState state = view.state();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("clusterId", node.config().clusterId());
    body.put("nodeId", node.config().nodeId());
    body.put("nodeEpoch", node.config().nodeEpoch());
    body.put("ready", node.ready());
    body.put("appliedIndex", view.appliedIndex());
    body.put("streams", state.streams().size());
    body.put("objects", state.catalog().size());
    body.put("destructionBacklog", state.destructionQueue().size());
    body.put("leaseHolder", plane.holdsLease());
    body.put("metadata", plane.description());
    List<Map<String, Object>> transfers = new ArrayList<>();
    Map<Long, String> names =
        state.pendingTransfers().isEmpty() ? Map.of() : Registry.namesById(state);
    for (PendingTransfer transfer : state.pendingTransfers().values()) {
      Map<String, Object> pending = new LinkedHashMap<>();
      pending.put("stream", names.get(transfer.streamId()));
      pending.put("streamId", transfer.streamId());
      pending.put("fromNode", transfer.fromNodeId());
      pending.put("toNode", transfer.toNodeId());
      pending.put("epoch", transfer.epoch());
      transfers.add(pending);
    }
    body.put("pendingTransfers", transfers);
    return body;
  }

  /**
   * Each registered node with its liveness: {@code state} ({@code live}, {@code suspect}, {@code
   * dead}), and from its liveness row, if it has one, {@code renewedMsAgo} and {@code ttlMs} (else
   * null).
   */
  private static List<Map<String, Object>> nodes(MetadataState state, LivenessView liveness) {
    Map<Integer, Long> open = new HashMap<>();
    for (StreamEntry stream : state.streams().values()) {
      if (stream.isOpen()) {
        open.merge(stream.nodeId(), 1L, Long::sum);
      }
    }
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (NodeRecord record : state.nodes().values()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("nodeId", record.nodeId());
      node.put("nodeEpoch", record.nodeEpoch());
      node.put("address", record.advertisedAddress());
      node.put("slots", record.slots());
      node.put("streams", record.placedStreams());
      node.put("openStreams", open.getOrDefault(record.nodeId(), 0L));
      // A taken-over process is dead to the cluster, even if (paused, then resumed) it renews.
      node.put(
          "state",
          record.isTakenOver()
              ? NodeState.DEAD.label()
              : liveness.state(record.nodeId(), record.nodeEpoch()).label());
      node.put("takenOverBy", record.isTakenOver() ? record.takerNodeId() : null);
      Optional<LivenessRow> row = liveness.row(record.nodeId());
      node.put(
          "renewedMsAgo", row.map(r -> liveness.nowMillis() - r.renewedAtMillis()).orElse(null));
      node.put("ttlMs", row.map(LivenessRow::ttlMillis).orElse(null));
      nodes.add(node);
    }
    return nodes;
  }

  private void stream(Exchange exchange, String name) {
    MetadataState state = node.plane().state();
    Optional<String> unusable = Registry.unusableReason(state, name);
    if (unusable.isPresent()) {
      // Stored state no node can use: say so and why; DELETE on the data listener removes it.
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", name);
      body.put("state", "unusable");
      body.put("reason", unusable.get());
      send(exchange, 200, body);
      return;
    }
    OptionalLong streamId = Registry.registeredStreamId(state, name);
    if (streamId.isEmpty() || state.stream(streamId.getAsLong()).isEmpty()) {
      send(exchange, 404, error("stream_not_found", "no stream named " + name));
      return;
    }
    StreamEntry stream = state.stream(streamId.getAsLong()).get();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("streamId", stream.streamId());
    body.put("owner", stream.nodeId());
    body.put("state", stream.isOpen() ? "open" : "closed");
    body.put("epoch", stream.epoch());
    body.put("startOffset", stream.startOffset());
    body.put("endOffset", stream.endOffset());
    body.put(
        "pendingTransferTo",
        state.pendingTransfer(stream.streamId()).map(PendingTransfer::toNodeId).orElse(null));
    send(exchange, 200, body);
  }

  /** {@code GET /metrics}: every meter of the node in the Prometheus text format. */
  private void metrics(Exchange exchange) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, PROMETHEUS_TEXT);
    exchange.respond(
        HttpResponseStatus.OK,
        headers,
        node.metrics().scrape().getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** {@code POST /admin/nodes/{id}} with {@code {"slots": n}}: proposes the new slot count. */
  private void setSlots(Exchange exchange, String id) {
    int nodeId;
    int slots;
    try {
      nodeId = Integer.parseInt(id);
      JsonNode body = JSON.readTree(exchange.body());
      if (body == null || !body.path("slots").canConvertToInt() || body.path("slots").asInt() < 0) {
        send(exchange, 400, error("bad_request", "expected {\"slots\": n} with n >= 0"));
        return;
      }
      slots = body.path("slots").asInt();
    } catch (NumberFormatException | java.io.IOException e) {
      send(exchange, 400, error("bad_request", "expected /admin/nodes/{id} and {\"slots\": n}"));
      return;
    }
    Result result;
    try {
      result = node.plane().propose(new Command.SetNodeSlots(nodeId, slots)).join();
    } catch (IllegalArgumentException e) {
      send(exchange, 400, error("bad_request", e.getMessage()));
      return;
    }
    if (result instanceof Result.Rejected rejected) {
      int status = rejected.reason() == RejectReason.UNKNOWN_NODE ? 404 : 409;
      send(
          exchange,
          status,
          error(rejected.reason().name().toLowerCase(java.util.Locale.ROOT), rejected.message()));
      return;
    }
    send(exchange, 200, Map.of("nodeId", nodeId, "slots", slots));
  }

  private static Map<String, Object> error(String code, String message) {
    return Map.of("error", code, "message", message);
  }

  private static void send(Exchange exchange, int status, Object body) {
    send(exchange, status, body, new DefaultHttpHeaders());
  }

  private static void send(Exchange exchange, int status, Object body, HttpHeaders headers) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    headers.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
    exchange.respond(HttpResponseStatus.valueOf(status), headers, bytes);
  }

  @Override
  public void close() {
    listener.shutdown(Duration.ZERO).join();
  }
}
