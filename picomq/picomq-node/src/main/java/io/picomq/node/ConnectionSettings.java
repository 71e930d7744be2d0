package io.picomq.node;

import io.picomq.frontend.http.ConnectionLimits;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The node's connection limits. Both listeners use the same timeouts; each has its own cap, so a
 * flood of the protocol listener leaves the admin listener its own connections (and {@code /health}
 * its answers).
 *
 * @param headerTimeout a request's headers are due within this long of its first byte (a new
 *     connection's first request, of the accept)
 * @param idleTimeout a connection with no request in flight is closed after this long
 * @param maxConnections the protocol listener's cap; empty to derive it from the process's file
 *     descriptor limit ({@link #protocolCap})
 * @param adminMaxConnections the admin listener's cap
 */
public record ConnectionSettings(
    Duration headerTimeout,
    Duration idleTimeout,
    OptionalInt maxConnections,
    int adminMaxConnections) {

  public static final int DEFAULT_ADMIN_MAX_CONNECTIONS = 64;

  public static final ConnectionSettings DEFAULT =
      new ConnectionSettings(
          ConnectionLimits.DEFAULT_HEADER_TIMEOUT,
          ConnectionLimits.DEFAULT_IDLE_TIMEOUT,
          OptionalInt.empty(),
          DEFAULT_ADMIN_MAX_CONNECTIONS);

  public ConnectionSettings {
    Objects.requireNonNull(maxConnections, "maxConnections");
    // ConnectionLimits validates the timeouts and the caps.
    new ConnectionLimits(headerTimeout, idleTimeout, adminMaxConnections);
    maxConnections.ifPresent(max -> new ConnectionLimits(headerTimeout, idleTimeout, max));
  }

  /**
   * The protocol listener's cap. Unless set, the smaller of {@link
   * ConnectionLimits#DEFAULT_MAX_CONNECTIONS} and three quarters of the process's descriptors less
   * the admin listener's cap: the last quarter stays for what else the node opens (the JVM's own
   * files, event loops, the metadata database, object files and storage connections), so a flood of
   * the protocol listener cannot starve them. With 1,024 descriptors that is 704 connections; from
   * 13,419 up, 10,000.
   *
   * @param maxFileDescriptors the process's limit; 0 or less when unknown (then the fixed default)
   */
  public int protocolCap(long maxFileDescriptors) {
    if (maxConnections.isPresent()) {
      return maxConnections.getAsInt();
    }
    if (maxFileDescriptors <= 0) {
      return ConnectionLimits.DEFAULT_MAX_CONNECTIONS;
    }
    long budget = Math.max(1, maxFileDescriptors * 3 / 4 - adminMaxConnections);
    return (int) Math.min(ConnectionLimits.DEFAULT_MAX_CONNECTIONS, budget);
  }

  /** Whether both caps leave at least a quarter of {@code maxFileDescriptors} to the rest. */
  public boolean fitsIn(long maxFileDescriptors) {
    long caps = (long) protocolCap(maxFileDescriptors) + adminMaxConnections;
    return maxFileDescriptors <= 0 || caps <= maxFileDescriptors * 3 / 4;
  }

  ConnectionLimits protocolLimits(long maxFileDescriptors) {
    return new ConnectionLimits(headerTimeout, idleTimeout, protocolCap(maxFileDescriptors));
  }

  ConnectionLimits adminLimits() {
    return new ConnectionLimits(headerTimeout, idleTimeout, adminMaxConnections);
  }
}
