package io.picomq.frontend.access;

import java.time.Instant;

/**
 * Where the tokens and the anonymous scope live (the node keeps them in the metadata KV and serves
 * this from memory): called on an event loop for every request, so it must not block.
 */
@FunctionalInterface
public interface Credentials {

  /**
   * @param authorization the request's {@code Authorization} header, null when it has none
   * @param now the time to judge expiry against
   */
  Authentication authenticate(String authorization, Instant now);
}
