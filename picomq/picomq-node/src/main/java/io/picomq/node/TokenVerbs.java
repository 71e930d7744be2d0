package io.picomq.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.picomq.frontend.access.Authentication;
import io.picomq.frontend.access.InvalidScope;
import io.picomq.frontend.access.PresentedToken;
import io.picomq.frontend.access.Scope;
import io.picomq.frontend.access.ScopeJson;
import io.picomq.frontend.http.Exchange;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.sql.liveness.LivenessView;
import io.picomq.sql.liveness.NodeState;
import io.picomq.sql.log.View;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The admin listener's token verbs: issue ({@code POST /admin/tokens}), list ({@code GET}), revoke
 * ({@code DELETE /admin/tokens/{id}}), and the anonymous scope ({@code GET|PUT|DELETE
 * /admin/anonymous}). Access control has checked the {@code tokens} verb already; here a scope
 * given away is checked against the caller's own: narrower or equal, or refused (403) naming the
 * part that is wider. Nothing is clamped.
 *
 * <p>Every change answers once every node that is not dead enforces it ({@link AccessTokens} on the
 * reports this waits for); if some node has not confirmed within twice the liveness TTL (by then a
 * stopped node is dead), the change stands and the answer says which nodes are unconfirmed ({@code
 * 202} for a revocation or a removed anonymous scope, {@code unconfirmed_nodes} in a body).
 */
final class TokenVerbs {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKENS = "/admin/tokens";
  private static final String ANONYMOUS = "/admin/anonymous";
  private static final int MAX_LABEL_CHARS = 256;
  private static final Duration POLL = Duration.ofMillis(200);

  private final MetadataPlane plane;
  private final AccessTokens tokens;
  private final boolean enforced;
  private final Supplier<LivenessView> liveness;
  private final Duration confirmTimeout;
  private final InstantSource clock;
  private final SecureRandom random = new SecureRandom();

  TokenVerbs(
      MetadataPlane plane,
      AccessTokens tokens,
      boolean enforced,
      Supplier<LivenessView> liveness,
      Duration confirmTimeout,
      InstantSource clock) {
    this.plane = plane;
    this.tokens = tokens;
    this.enforced = enforced;
    this.liveness = liveness;
    this.confirmTimeout = confirmTimeout;
    this.clock = clock;
  }

  static boolean serves(String path) {
    return path.equals(TOKENS) || path.startsWith(TOKENS + "/") || path.equals(ANONYMOUS);
  }

  TransferVerbs.Answer answer(Exchange exchange) {
    String method = exchange.method().name();
    String path = exchange.path();
    Authentication.Granted caller;
    switch (caller(exchange)) {
      case Authentication.Granted granted -> caller = granted;
      case Authentication.Refused refused -> {
        return error(401, "unauthorized", refused.reason());
      }
    }
    if (path.equals(ANONYMOUS)) {
      return switch (method) {
        case "GET" -> anonymous();
        case "PUT" -> setAnonymous(exchange.body(), caller);
        case "DELETE" -> removeAnonymous();
        default -> error(405, "method_not_allowed", "GET, PUT or DELETE " + ANONYMOUS);
      };
    }
    if (path.equals(TOKENS)) {
      return switch (method) {
        case "GET" -> list();
        case "POST" -> issue(exchange.body(), caller);
        default -> error(405, "method_not_allowed", "GET or POST " + TOKENS);
      };
    }
    if (!method.equals("DELETE")) {
      return error(405, "method_not_allowed", "DELETE " + TOKENS + "/{id}");
    }
    return revoke(path.substring(TOKENS.length() + 1), caller);
  }

  /** Who asks: the token or anonymous scope access control let in; everyone, when it is off. */
  private Authentication caller(Exchange exchange) {
    if (!enforced) {
      return new Authentication.Granted(Scope.ALL, Optional.empty());
    }
    return tokens.authenticate(
        exchange.headers().get(HttpHeaderNames.AUTHORIZATION), clock.instant());
  }

  private TransferVerbs.Answer issue(byte[] body, Authentication.Granted caller) {
    Optional<ObjectNode> json = object(body, Set.of("scope", "label"));
    if (json.isEmpty()) {
      return error(400, "bad_request", "expected {\"scope\": {...}, \"label\": \"optional text\"}");
    }
    JsonNode labelNode = json.get().get("label");
    if (labelNode != null && !labelNode.isNull() && !labelNode.isTextual()) {
      return error(400, "bad_request", "label is a string");
    }
    String label = labelNode == null || labelNode.isNull() ? null : labelNode.textValue();
    if (label != null && label.length() > MAX_LABEL_CHARS) {
      return error(400, "bad_request", "label is at most " + MAX_LABEL_CHARS + " characters");
    }
    Scope scope;
    try {
      scope = given(json.get().get("scope"), caller);
    } catch (Refusal refusal) {
      return refusal.answer;
    }
    PresentedToken token = PresentedToken.generate(random);
    StoredToken stored =
        new StoredToken(
            token.id(),
            token.secretDigest(),
            scope,
            label,
            clock.instant().truncatedTo(ChronoUnit.SECONDS),
            caller.tokenId());
    Result result =
        plane
            .propose(new Command.KvPutIfAbsent(AccessTokens.tokenKey(token.id()), stored.encode()))
            .join();
    if (result instanceof Result.Rejected rejected) {
      // Two 72-bit random ids alike: say so rather than hand out a token that does not work.
      return error(409, "token_id_taken", rejected.message());
    }
    List<Integer> unconfirmed = awaitEnforcedEverywhere();
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", token.id());
    answer.put("token", token.reveal());
    answer.setAll(stored.describe());
    unconfirmed(answer, unconfirmed);
    return new TransferVerbs.Answer(201, answer);
  }

  private TransferVerbs.Answer list() {
    ArrayNode listed = JSON.createArrayNode();
    for (StoredToken token : tokens.snapshot().tokens().values()) {
      listed.add(token.describe());
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.set("tokens", listed);
    return new TransferVerbs.Answer(200, answer);
  }

  private TransferVerbs.Answer revoke(String id, Authentication.Granted caller) {
    StoredToken stored = tokens.snapshot().tokens().get(id);
    if (stored == null) {
      return error(404, "token_not_found", "no token " + id);
    }
    boolean self = caller.tokenId().filter(id::equals).isPresent();
    Optional<String> wider = stored.scope().widerThan(caller.scope());
    if (!self && wider.isPresent()) {
      return error(
          403,
          "forbidden",
          "token "
              + id
              + " is wider than the caller's own, so it may not revoke it: "
              + wider.get());
    }
    plane.proposeAccepted(new Command.KvDelete(AccessTokens.tokenKey(id))).join();
    return changed(awaitEnforcedEverywhere(), 204, null);
  }

  private TransferVerbs.Answer anonymous() {
    ObjectNode answer = JSON.createObjectNode();
    Optional<Scope> scope = tokens.snapshot().anonymous();
    if (scope.isPresent()) {
      answer.set("scope", ScopeJson.write(scope.get()));
    } else {
      answer.putNull("scope");
    }
    return new TransferVerbs.Answer(200, answer);
  }

  private TransferVerbs.Answer setAnonymous(byte[] body, Authentication.Granted caller) {
    Optional<ObjectNode> json = object(body, Set.of("scope"));
    if (json.isEmpty()) {
      return error(400, "bad_request", "expected {\"scope\": {...}}");
    }
    Scope scope;
    try {
      scope = given(json.get().get("scope"), caller);
    } catch (Refusal refusal) {
      return refusal.answer;
    }
    byte[] stored;
    try {
      stored = JSON.writeValueAsBytes(ScopeJson.write(scope));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    plane.proposeAccepted(new Command.KvPut(AccessTokens.ANONYMOUS_KEY, KvValue.of(stored))).join();
    List<Integer> unconfirmed = awaitEnforcedEverywhere();
    ObjectNode answer = JSON.createObjectNode();
    answer.set("scope", ScopeJson.write(scope));
    unconfirmed(answer, unconfirmed);
    return new TransferVerbs.Answer(200, answer);
  }

  private TransferVerbs.Answer removeAnonymous() {
    plane.proposeAccepted(new Command.KvDelete(AccessTokens.ANONYMOUS_KEY)).join();
    return changed(awaitEnforcedEverywhere(), 204, null);
  }

  /** A scope the caller gives away: valid, not yet expired, and no wider than the caller's. */
  private Scope given(JsonNode json, Authentication.Granted caller) throws Refusal {
    Scope scope;
    try {
      scope = ScopeJson.parse(json);
    } catch (InvalidScope invalid) {
      throw new Refusal(error(400, "invalid_scope", invalid.getMessage()));
    }
    Instant now = clock.instant();
    if (scope.expiredAt(now)) {
      throw new Refusal(
          error(400, "invalid_scope", "expires_at " + scope.expiresAt().get() + " has passed"));
    }
    Optional<String> wider = scope.widerThan(caller.scope());
    if (wider.isPresent()) {
      throw new Refusal(
          error(
              403,
              "forbidden",
              "the scope is wider than the caller's own, which it may only narrow: "
                  + wider.get()));
    }
    return scope;
  }

  /**
   * Waits until every node that is not dead reports enforcing the access keys as this node now sees
   * them, for at most the confirm timeout; returns the nodes that did not (empty: all did).
   */
  private List<Integer> awaitEnforcedEverywhere() {
    if (!enforced) {
      return List.of();
    }
    long deadline = System.nanoTime() + confirmTimeout.toNanos();
    while (true) {
      View<MetadataState> view = plane.view();
      List<Integer> pending = unconfirmed(view.state(), liveness.get());
      long leftNanos = deadline - System.nanoTime();
      if (pending.isEmpty() || leftNanos <= 0) {
        return pending;
      }
      // A report arrives as a row; a node may also die meanwhile: look again at either.
      try {
        plane
            .awaitApplied(
                view.appliedIndex() + 1, Duration.ofNanos(Math.min(leftNanos, POLL.toNanos())))
            .join();
      } catch (RuntimeException timedOut) {
        // Looked at again above.
      }
    }
  }

  private static List<Integer> unconfirmed(MetadataState state, LivenessView liveness) {
    KvValue target = KvValue.ofUtf8(AccessTokens.digestOf(state));
    List<Integer> pending = new ArrayList<>();
    for (NodeRecord node : state.nodes().values()) {
      if (node.isTakenOver() || liveness.state(node.nodeId(), node.nodeEpoch()) == NodeState.DEAD) {
        continue;
      }
      if (!target.equals(state.kv().get(AccessTokens.seenKey(node.nodeId())))) {
        pending.add(node.nodeId());
      }
    }
    return pending;
  }

  private static TransferVerbs.Answer changed(List<Integer> unconfirmed, int status, Object body) {
    if (unconfirmed.isEmpty()) {
      return new TransferVerbs.Answer(status, body);
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("changed", true);
    unconfirmed(answer, unconfirmed);
    return new TransferVerbs.Answer(202, answer);
  }

  private static void unconfirmed(ObjectNode answer, List<Integer> unconfirmed) {
    if (!unconfirmed.isEmpty()) {
      ArrayNode nodes = answer.putArray("unconfirmed_nodes");
      unconfirmed.forEach(nodes::add);
      answer.put(
          "message",
          "done, but nodes "
              + unconfirmed
              + " have not confirmed that they enforce it yet (they lag or stopped)");
    }
  }

  private static Optional<ObjectNode> object(byte[] body, Set<String> fields) {
    try {
      JsonNode json = JSON.readTree(body);
      if (json == null || !json.isObject()) {
        return Optional.empty();
      }
      for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
        if (!fields.contains(names.next())) {
          return Optional.empty();
        }
      }
      return Optional.of((ObjectNode) json);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static TransferVerbs.Answer error(int status, String code, String message) {
    return new TransferVerbs.Answer(status, Map.of("error", code, "message", message));
  }

  /** A request refused while reading it: carries its answer out of a nested check. */
  private static final class Refusal extends Exception {
    final transient TransferVerbs.Answer answer;

    Refusal(TransferVerbs.Answer answer) {
      super(null, null, false, false);
      this.answer = answer;
    }
  }
}
