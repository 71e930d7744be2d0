package io.picomq.frontend.ds;

import java.time.Duration;
import java.util.Objects;

/**
 * How the Durable Streams frontend paces live reads and sizes responses.
 *
 * @param longPollTimeout how long a long-poll waits for data before answering 204
 * @param sseMaxDuration how long one SSE response lasts before the server ends it (clients
 *     reconnect from the last offset; the protocol suggests about a minute so CDNs can collapse)
 * @param maxChunkBytes the body bytes one read response (or one SSE data event) carries at most,
 *     beyond a first record that is larger on its own
 */
public record DsOptions(Duration longPollTimeout, Duration sseMaxDuration, int maxChunkBytes) {

  public static final DsOptions DEFAULT =
      new DsOptions(Duration.ofSeconds(25), Duration.ofSeconds(55), 64 << 10);

  public DsOptions {
    Objects.requireNonNull(longPollTimeout, "longPollTimeout");
    Objects.requireNonNull(sseMaxDuration, "sseMaxDuration");
    if (longPollTimeout.isNegative() || longPollTimeout.isZero()) {
      throw new IllegalArgumentException("longPollTimeout must be positive: " + longPollTimeout);
    }
    if (sseMaxDuration.isNegative() || sseMaxDuration.isZero()) {
      throw new IllegalArgumentException("sseMaxDuration must be positive: " + sseMaxDuration);
    }
    if (maxChunkBytes < 1) {
      throw new IllegalArgumentException("maxChunkBytes must be positive: " + maxChunkBytes);
    }
  }
}
