package io.picomq.frontend.http;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a connection may take to send a request, how long it may sit idle, and how many
 * connections one listener holds at once. A connection past a timeout is closed; a connection
 * accepted beyond the cap is refused (see {@link ConnectionGuard} and {@link ConnectionBudget}).
 *
 * @param headerTimeout a request's headers must be complete within this long of its first byte; a
 *     new connection's first request within this long of the accept (default 10 s)
 * @param idleTimeout a connection with no request in flight is closed after this long without a new
 *     request (default 60 s); a request body that stalls this long is closed too. A live response
 *     (long-poll, SSE) is in flight, never idle
 * @param maxConnections open connections at most; one more is refused with a 503 and closed
 */
public record ConnectionLimits(Duration headerTimeout, Duration idleTimeout, int maxConnections) {

  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The data listener's cap when nothing else is known: below the 20,000 descriptors of a modest
   * {@code ulimit -n}, which the JVM raises its soft limit to (the hard limit) on Linux.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  public static final ConnectionLimits DEFAULT =
      new ConnectionLimits(DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS);

  public ConnectionLimits {
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (!isPositiveMillis(headerTimeout) || !isPositiveMillis(idleTimeout) || maxConnections < 1) {
      throw new IllegalArgumentException(
          "need headerTimeout and idleTimeout between 1 ms and 365 days, maxConnections >= 1:"
              + " headerTimeout="
              + headerTimeout
              + " idleTimeout="
              + idleTimeout
              + " maxConnections="
              + maxConnections);
    }
  }

  /** The same timeouts with another cap. */
  public ConnectionLimits withMaxConnections(int maxConnections) {
    return new ConnectionLimits(headerTimeout, idleTimeout, maxConnections);
  }

  private static boolean isPositiveMillis(Duration duration) {
    return duration.compareTo(Duration.ofMillis(1)) >= 0
        && duration.compareTo(Duration.ofDays(365)) <= 0;
  }
}
