package io.picomq.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.access.Authentication;
import io.picomq.frontend.access.Credentials;
import io.picomq.frontend.access.InvalidScope;
import io.picomq.frontend.access.PresentedToken;
import io.picomq.frontend.access.Scope;
import io.picomq.frontend.access.ScopeJson;
import io.picomq.frontend.access.SecretDigest;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.sql.log.View;
import io.picomq.sql.log.ViewListener;
import java.io.IOException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tokens and the anonymous scope, kept in the metadata KV and served from memory.
 *
 * <p>Layout: every key starts with {@link #PREFIX}, {@code "\u0001access/"}. The registry keeps a
 * stream under {@code stream/<name>}, and a stream name has no control characters, so no stream can
 * ever take one of these keys. {@code token/<id>} holds a {@link StoredToken}, {@code anonymous}
 * the anonymous scope's JSON, and {@code seen/<nodeId>} what a node enforces ({@link #digest}: see
 * below).
 *
 * <p>Hot path: {@link #authenticate} reads one immutable {@link Snapshot} (a map id to digest and
 * scope), rebuilt on the tailer thread when an applied row changes the access keys; no SQL, no
 * lock. Comparing the KV map's identity first makes the common row (not touching the KV) free.
 *
 * <p>Visible everywhere before answered: nodes apply the log on their own time, so an admin change
 * (issue, revoke, anonymous scope) would otherwise reach another node some milliseconds later. So
 * each node, once it applies a change to the access keys, proposes {@code seen/<nodeId>} = the
 * digest of the access keys it now enforces; the admin verb that made the change answers only when
 * every node that is not dead has reported the digest it itself computes after its change ({@link
 * AccessChanges}). Acknowledgements ride the log that carried the change, so nothing new is needed;
 * they cost one small row per node per change, and changes are rare.
 *
 * <p>Threading: {@link #onApplied} runs on the log's tailer thread; {@link #authenticate} on any
 * thread; {@link #snapshot} is a volatile read.
 */
final class AccessTokens implements Credentials, ViewListener<MetadataState> {

  private static final Logger LOG = LoggerFactory.getLogger(AccessTokens.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String PREFIX = "\u0001access/";
  static final String TOKEN_PREFIX = PREFIX + "token/";
  static final String ANONYMOUS_KEY = PREFIX + "anonymous";
  static final String SEEN_PREFIX = PREFIX + "seen/";

  /** What a node enforces at one moment. */
  record Snapshot(Map<String, StoredToken> tokens, Optional<Scope> anonymous, String digest) {
    static final Snapshot EMPTY =
        new Snapshot(Map.of(), Optional.empty(), AccessTokens.digest(new TreeMap<>()));
  }

  private final int nodeId;
  private final Consumer<KvValue> reportSeen;
  private volatile Snapshot snapshot = Snapshot.EMPTY;

  /**
   * Guards the fields below: taken by the tailer thread for each row and once by the starting
   * thread ({@link #startReporting}); never contended otherwise.
   */
  private final ReentrantLock applying = new ReentrantLock();

  private SortedMap<String, KvValue> lastKv;
  private SortedMap<String, KvValue> lastEntries = new TreeMap<>();
  private boolean reporting;

  /**
   * @param reportSeen proposes {@code seen/<nodeId>} with the digest now enforced (a non-blocking
   *     proposal)
   */
  AccessTokens(int nodeId, Consumer<KvValue> reportSeen) {
    this.nodeId = nodeId;
    this.reportSeen = reportSeen;
  }

  /**
   * Tokens kept up to date by {@code plane}'s applied rows (registered as its listener), reporting
   * what this node enforces through proposals to it.
   */
  static AccessTokens on(MetadataPlane plane, int nodeId) {
    AccessTokens tokens =
        new AccessTokens(
            nodeId,
            digest ->
                plane
                    .propose(new Command.KvPut(seenKey(nodeId), digest))
                    .whenComplete(
                        (result, failure) -> {
                          if (failure != null) {
                            // The next change, or the next start, reports again.
                            LOG.warn(
                                "cannot report the access keys enforced: {}", failure.toString());
                          }
                        }));
    plane.addListener(tokens);
    return tokens;
  }

  static String tokenKey(String id) {
    return TOKEN_PREFIX + id;
  }

  static String seenKey(int nodeId) {
    return SEEN_PREFIX + nodeId;
  }

  Snapshot snapshot() {
    return snapshot;
  }

  /**
   * From now on reports each change it applies, and reports what it enforces now: a node that was
   * down when a change was made reports on its return.
   */
  void startReporting(MetadataState state) {
    applying.lock();
    try {
      reporting = true;
      apply(state, true);
    } finally {
      applying.unlock();
    }
  }

  @Override
  public void onApplied(View<MetadataState> view) {
    applying.lock();
    try {
      apply(view.state(), false);
    } finally {
      applying.unlock();
    }
  }

  private void apply(MetadataState state, boolean reportAnyway) {
    SortedMap<String, KvValue> kv = state.kv();
    if (kv == lastKv && !reportAnyway) {
      return;
    }
    lastKv = kv;
    SortedMap<String, KvValue> entries = accessEntries(kv);
    boolean changed = !entries.equals(lastEntries);
    if (changed) {
      lastEntries = entries;
      snapshot = decode(entries);
    }
    if (reporting && (changed || reportAnyway)) {
      KvValue digest = KvValue.ofUtf8(snapshot.digest());
      if (!digest.equals(kv.get(seenKey(nodeId)))) {
        reportSeen.accept(digest);
      }
    }
  }

  /** The digest a node enforcing {@code state}'s access keys reports. */
  static String digestOf(MetadataState state) {
    return digest(accessEntries(state.kv()));
  }

  /** The access keys that say who may do what (the seen/ reports left out). */
  private static SortedMap<String, KvValue> accessEntries(SortedMap<String, KvValue> kv) {
    SortedMap<String, KvValue> entries = new TreeMap<>(kv.subMap(PREFIX, SEEN_PREFIX));
    entries.putAll(kv.subMap(SEEN_PREFIX + Character.MAX_VALUE, PREFIX + Character.MAX_VALUE));
    return entries;
  }

  private static String digest(SortedMap<String, KvValue> entries) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, KvValue> entry : entries.entrySet()) {
        byte[] key = entry.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] value = entry.getValue().toByteArray();
        sha.update(java.nio.ByteBuffer.allocate(8).putInt(key.length).putInt(value.length).array());
        sha.update(key);
        sha.update(value);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static Snapshot decode(SortedMap<String, KvValue> entries) {
    Map<String, StoredToken> tokens = new TreeMap<>();
    Optional<Scope> anonymous = Optional.empty();
    for (Map.Entry<String, KvValue> entry : entries.entrySet()) {
      String key = entry.getKey();
      if (key.startsWith(TOKEN_PREFIX)) {
        String id = key.substring(TOKEN_PREFIX.length());
        Optional<StoredToken> token = StoredToken.decode(id, entry.getValue());
        token.ifPresentOrElse(
            t -> tokens.put(id, t),
            () -> LOG.warn("ignoring the stored token {}: its value is not a token", id));
      } else if (key.equals(ANONYMOUS_KEY)) {
        anonymous = decodeScope(entry.getValue());
      }
    }
    return new Snapshot(Map.copyOf(tokens), anonymous, digest(entries));
  }

  private static Optional<Scope> decodeScope(KvValue value) {
    try {
      return Optional.of(ScopeJson.parse(JSON.readTree(value.toByteArray())));
    } catch (IOException | InvalidScope e) {
      LOG.warn("ignoring the stored anonymous scope: {}", e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public Authentication authenticate(String authorization, Instant now) {
    Snapshot current = snapshot;
    if (authorization == null) {
      if (current.anonymous().isPresent() && !current.anonymous().get().expiredAt(now)) {
        return new Authentication.Granted(current.anonymous().get(), Optional.empty());
      }
      return new Authentication.Refused(
          "no credential: send Authorization: Bearer <token> (no anonymous access is granted)");
    }
    if (authorization.length() < 7 || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return new Authentication.Refused("the Authorization header is not 'Bearer <token>'");
    }
    Optional<PresentedToken> token = PresentedToken.parse(authorization.substring(7).strip());
    if (token.isEmpty()) {
      return new Authentication.Refused(
          "the bearer token is malformed: expected <id>.<secret>, base64url without padding");
    }
    String id = token.get().id();
    StoredToken stored = current.tokens().get(id);
    if (stored == null) {
      return new Authentication.Refused("no token " + id + " (never issued, or revoked)");
    }
    if (!SecretDigest.equal(stored.digest(), token.get().secretDigest())) {
      return new Authentication.Refused("the secret of token " + id + " is wrong");
    }
    if (stored.scope().expiredAt(now)) {
      return new Authentication.Refused(
          "token " + id + " expired at " + stored.scope().expiresAt().get());
    }
    return new Authentication.Granted(stored.scope(), Optional.of(id));
  }
}
