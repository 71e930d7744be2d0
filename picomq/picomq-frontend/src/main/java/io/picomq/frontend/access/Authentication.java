package io.picomq.frontend.access;

import java.util.Optional;

/** Who a request is: a scope it may use, or no valid credential (answered 401). */
public sealed interface Authentication {

  /**
   * A valid token, or no token where an anonymous scope is stored.
   *
   * @param tokenId the token's id; empty for the anonymous scope
   */
  record Granted(Scope scope, Optional<String> tokenId) implements Authentication {}

  /** No valid credential: missing, malformed, unknown, wrong, expired or revoked; says which. */
  record Refused(String reason) implements Authentication {}
}
