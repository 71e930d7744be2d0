package io.picomq.frontend.http;

import io.netty.handler.codec.http.HttpRequest;
import java.util.Optional;

/**
 * Decides a request on its head alone, before its body is read and before routing ({@link
 * AccessGate}). The decision runs on the connection's event loop: it must not block.
 */
@FunctionalInterface
public interface AccessControl {

  /** Lets everything through: a listener with access control off. */
  AccessControl OPEN = (head, path, mayHaveBody) -> Optional.empty();

  /**
   * Why the request is refused, or empty to let it through.
   *
   * @param path the request path, percent-decoded (null when it does not decode)
   * @param mayHaveBody whether a body follows the head (so far as the head says)
   */
  Optional<AccessRefusal> check(HttpRequest head, String path, boolean mayHaveBody);
}
