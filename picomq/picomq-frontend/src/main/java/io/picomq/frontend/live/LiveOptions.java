package io.picomq.frontend.live;

import java.time.Duration;
import java.util.Objects;

/**
 * How a frontend paces live reads and sizes read answers; both protocols take the same settings.
 *
 * @param longPollTimeout how long a long-poll waits for data before answering 204; also how long an
 *     SSE response stays silent before it sends a keep-alive
 * @param sseMaxDuration how long one SSE response lasts before the server ends it; the client
 *     reconnects from where it got to, which lets a load balancer rebalance and bounds how long a
 *     half-dead connection lingers (Durable Streams suggests about a minute so CDNs can collapse)
 * @param maxChunkBytes the body bytes one read answer (or one SSE event) carries, beyond a first
 *     record that is larger on its own; a Pico request may ask for another amount with {@code
 *     bytes=}
 */
public record LiveOptions(Duration longPollTimeout, Duration sseMaxDuration, int maxChunkBytes) {

  public static final LiveOptions DEFAULT =
      new LiveOptions(Duration.ofSeconds(25), Duration.ofSeconds(55), 64 << 10);

  public LiveOptions {
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
