package io.picomq.node;

import io.picomq.frontend.access.PresentedToken;
import io.picomq.frontend.access.Scope;
import io.picomq.frontend.access.SecretDigest;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.server.metadata.MetadataPlane;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What a node checks about access control before it serves: that it does not listen beyond loopback
 * with access control off (unless {@code --insecure}), and, with it on, that the root token exists
 * (created if absent: idempotent, so nodes starting together race harmlessly) or some token does.
 */
final class AccessBootstrap {

  private static final long TIMEOUT_SECONDS = 60;

  private AccessBootstrap() {}

  /**
   * @throws IllegalStateException in one line, when a listener binds beyond loopback while access
   *     control is off and {@code --insecure} is not given
   */
  static void refuseOpenListeners(NodeConfig config) {
    AccessSettings access = config.access();
    if (access.enabled() || access.insecure()) {
      return;
    }
    List<String> open = new ArrayList<>();
    if (!isLoopback(NodeConfig.HostPort.parse(config.listen()).host())) {
      open.add("the data listener (" + config.listen() + ")");
    }
    if (config.adminListen().isPresent()
        && !isLoopback(NodeConfig.HostPort.parse(config.adminListen().get()).host())) {
      open.add("the admin listener (" + config.adminListen().get() + ")");
    }
    if (!open.isEmpty()) {
      throw new IllegalStateException(
          String.join(" and ", open)
              + " would listen beyond loopback with access control off: turn it on"
              + " (--access-control, PICO_ACCESS_CONTROL=on) or accept an open node with"
              + " --insecure (PICO_INSECURE=true)");
    }
  }

  private static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException unknown) {
      return false;
    }
  }

  /**
   * Makes sure the root token exists with every right; without one, that some token exists.
   *
   * @throws IllegalStateException in one line when neither holds, or when a token with the root
   *     token's id but another secret is stored
   */
  static void ensure(MetadataPlane plane, AccessTokens tokens, AccessSettings access, Clock clock)
      throws Exception {
    Optional<PresentedToken> root = access.root();
    if (root.isEmpty()) {
      tokens.startReporting(plane.state());
      if (tokens.snapshot().tokens().isEmpty()) {
        throw new IllegalStateException(
            "access control is on but no token exists: give a root token with --root-token-file"
                + " FILE or PICO_ROOT_TOKEN (BASE64URL of 9 random bytes, '.', BASE64URL of 32"
                + " random bytes)");
      }
      return;
    }
    PresentedToken token = root.get();
    String key = AccessTokens.tokenKey(token.id());
    StoredToken stored =
        new StoredToken(
            token.id(),
            token.secretDigest(),
            Scope.ALL,
            "root",
            clock.instant().truncatedTo(ChronoUnit.SECONDS),
            Optional.empty());
    Result result =
        plane
            .propose(new Command.KvPutIfAbsent(key, stored.encode()))
            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (result instanceof Result.Rejected) {
      // Present already (another node, an earlier start): fine if it is this token.
      Optional<KvValue> present = plane.state().kvValue(key);
      boolean same =
          present
              .flatMap(value -> StoredToken.decode(token.id(), value))
              .filter(existing -> SecretDigest.equal(existing.digest(), token.secretDigest()))
              .isPresent();
      if (!same) {
        throw new IllegalStateException(
            "a token with the root token's id " + token.id() + " but another secret is stored");
      }
    }
    tokens.startReporting(plane.state());
  }
}
