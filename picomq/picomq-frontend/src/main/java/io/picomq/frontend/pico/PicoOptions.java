package io.picomq.frontend.pico;

import java.time.Duration;
import java.util.Objects;

/**
 * How the Pico frontend paces live reads and sizes responses.
 *
 * @param longPollTimeout how long a long-poll parks before answering 204; also the interval of SSE
 *     keep-alive comments on an idle stream
 * @param sseMaxDuration how long one SSE response lasts before the server ends it; the client
 *     reconnects with {@code Last-Event-ID}, which lets a load balancer rebalance and bounds how
 *     long a half-dead connection lingers
 * @param defaultReadBytes the body bytes a read returns when the request gives no {@code bytes} (a
 *     request may ask for up to 16 MiB, or this, whichever is more)
 */
public record PicoOptions(Duration longPollTimeout, Duration sseMaxDuration, int defaultReadBytes) {

  public static final PicoOptions DEFAULT =
      new PicoOptions(Duration.ofSeconds(25), Duration.ofSeconds(55), 64 << 10);

  public PicoOptions {
    Objects.requireNonNull(longPollTimeout, "longPollTimeout");
    Objects.requireNonNull(sseMaxDuration, "sseMaxDuration");
    if (longPollTimeout.isNegative() || longPollTimeout.isZero()) {
      throw new IllegalArgumentException("longPollTimeout must be positive: " + longPollTimeout);
    }
    if (sseMaxDuration.isNegative() || sseMaxDuration.isZero()) {
      throw new IllegalArgumentException("sseMaxDuration must be positive: " + sseMaxDuration);
    }
    if (defaultReadBytes < 1) {
      throw new IllegalArgumentException("defaultReadBytes must be positive: " + defaultReadBytes);
    }
  }
}
