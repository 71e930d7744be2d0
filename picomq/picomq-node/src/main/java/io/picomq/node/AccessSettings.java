package io.picomq.node;

import io.picomq.frontend.access.PresentedToken;
import java.util.Objects;
import java.util.Optional;

/**
 * Access control on the node's listeners ({@code --access-control}), the operator's root token that
 * bootstraps it, and the {@code --insecure} consent to listen beyond loopback without it.
 *
 * @param enabled whether requests need a token (or the stored anonymous scope)
 * @param rootToken a token the node makes sure exists with every right ({@code --root-token-file},
 *     {@code PICO_ROOT_TOKEN}); it must be a well-formed token
 * @param insecure whether the node may listen beyond loopback with access control off
 */
public record AccessSettings(boolean enabled, Optional<Secret> rootToken, boolean insecure) {

  /** Off, no root token, loopback only: what a node gets unless told otherwise. */
  public static final AccessSettings DEFAULT = new AccessSettings(false, Optional.empty(), false);

  public AccessSettings {
    Objects.requireNonNull(rootToken, "rootToken");
    if (rootToken.isPresent() && PresentedToken.parse(rootToken.get().reveal()).isEmpty()) {
      throw new IllegalArgumentException(
          "the root token (--root-token-file or PICO_ROOT_TOKEN) is not a token:"
              + " expected BASE64URL(9-byte id).BASE64URL(32-byte secret), no padding");
    }
  }

  /** The root token, parsed. */
  Optional<PresentedToken> root() {
    return rootToken.map(secret -> PresentedToken.parse(secret.reveal()).orElseThrow());
  }
}
