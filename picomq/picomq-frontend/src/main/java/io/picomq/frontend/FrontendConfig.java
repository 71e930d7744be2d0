package io.picomq.frontend;

import io.picomq.frontend.http.AllowedHosts;
import io.picomq.frontend.http.AllowedOrigins;
import io.picomq.frontend.http.ConnectionLimits;
import io.picomq.frontend.http.HttpLimits;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.frontend.tls.ServerTls;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How a {@link Frontend} listens and serves. Build one with {@link #builder}; every setting has a
 * default, and setting one twice is an error (it is always a mistake in the caller).
 *
 * @param host address to bind (default {@code 127.0.0.1})
 * @param port port to bind, 0 for any free one (default 4437, the protocol's port)
 * @param protocol which protocol (default {@link ListenerProtocol#PICO})
 * @param limits request size limits
 * @param longPollTimeout how long a long-poll waits (default 25 s)
 * @param sseMaxDuration how long one SSE response lasts (default 55 s)
 * @param maxChunkBytes body bytes per read response (default 64 KiB)
 * @param ioThreads event loop threads (default: the number of processors)
 * @param backlog the accept queue's length (default 1024, {@code --backlog})
 * @param connectionLimits header and idle timeouts and the cap on open connections (default {@link
 *     ConnectionLimits#DEFAULT})
 * @param allowedHosts the {@code Host} values answered (default {@link
 *     AllowedHosts#forListener}{@code (host)}: the bind address's own names)
 * @param corsOrigins the origins whose pages browsers let call (default {@link
 *     AllowedOrigins#LOOPBACK}, {@code --cors-origins})
 * @param tls the certificate to serve TLS with, shared with other listeners that reload with it;
 *     empty (the default) for cleartext
 */
public record FrontendConfig(
    String host,
    int port,
    ListenerProtocol protocol,
    HttpLimits limits,
    Duration longPollTimeout,
    Duration sseMaxDuration,
    int maxChunkBytes,
    int ioThreads,
    int backlog,
    ConnectionLimits connectionLimits,
    AllowedHosts allowedHosts,
    AllowedOrigins corsOrigins,
    Optional<ServerTls> tls) {

  /** How the operator changes {@code corsOrigins}, named when a foreign page's write is refused. */
  public static final String CORS_SETTING = "--cors-origins (PICO_CORS_ORIGINS)";

  public FrontendConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(allowedHosts, "allowedHosts");
    Objects.requireNonNull(corsOrigins, "corsOrigins");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(connectionLimits, "connectionLimits");
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(limits, "limits");
    // LiveOptions validates the durations and the chunk size.
    new LiveOptions(longPollTimeout, sseMaxDuration, maxChunkBytes);
    if (port < 0 || port > 65535 || ioThreads < 1 || backlog < 1) {
      throw new IllegalArgumentException(
          "need 0 <= port <= 65535, ioThreads >= 1, backlog >= 1: port="
              + port
              + " ioThreads="
              + ioThreads
              + " backlog="
              + backlog);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  LiveOptions liveOptions() {
    return new LiveOptions(longPollTimeout, sseMaxDuration, maxChunkBytes);
  }

  /** Collects settings; each may be given once. */
  public static final class Builder {
    private final Set<String> given = new HashSet<>();
    private String host = "127.0.0.1";
    private int port = 4437;
    private ListenerProtocol protocol = ListenerProtocol.PICO;
    private HttpLimits limits = HttpLimits.DEFAULT;
    private Duration longPollTimeout = LiveOptions.DEFAULT.longPollTimeout();
    private Duration sseMaxDuration = LiveOptions.DEFAULT.sseMaxDuration();
    private int maxChunkBytes = LiveOptions.DEFAULT.maxChunkBytes();
    private int ioThreads = Runtime.getRuntime().availableProcessors();
    private int backlog = 1024;
    private ConnectionLimits connectionLimits = ConnectionLimits.DEFAULT;
    private AllowedHosts allowedHosts;
    private AllowedOrigins corsOrigins = AllowedOrigins.LOOPBACK;
    private Optional<ServerTls> tls = Optional.empty();

    private Builder() {}

    private void once(String setting) {
      if (!given.add(setting)) {
        throw new IllegalStateException(setting + " was already set");
      }
    }

    public Builder host(String host) {
      once("host");
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      once("port");
      this.port = port;
      return this;
    }

    public Builder protocol(ListenerProtocol protocol) {
      once("protocol");
      this.protocol = protocol;
      return this;
    }

    public Builder limits(HttpLimits limits) {
      once("limits");
      this.limits = limits;
      return this;
    }

    public Builder longPollTimeout(Duration longPollTimeout) {
      once("longPollTimeout");
      this.longPollTimeout = longPollTimeout;
      return this;
    }

    public Builder sseMaxDuration(Duration sseMaxDuration) {
      once("sseMaxDuration");
      this.sseMaxDuration = sseMaxDuration;
      return this;
    }

    public Builder maxChunkBytes(int maxChunkBytes) {
      once("maxChunkBytes");
      this.maxChunkBytes = maxChunkBytes;
      return this;
    }

    public Builder ioThreads(int ioThreads) {
      once("ioThreads");
      this.ioThreads = ioThreads;
      return this;
    }

    public Builder backlog(int backlog) {
      once("backlog");
      this.backlog = backlog;
      return this;
    }

    public Builder connectionLimits(ConnectionLimits connectionLimits) {
      once("connectionLimits");
      this.connectionLimits = connectionLimits;
      return this;
    }

    public Builder allowedHosts(AllowedHosts allowedHosts) {
      once("allowedHosts");
      this.allowedHosts = allowedHosts;
      return this;
    }

    public Builder corsOrigins(AllowedOrigins corsOrigins) {
      once("corsOrigins");
      this.corsOrigins = corsOrigins;
      return this;
    }

    /** Serves TLS with {@code tls}'s certificate ({@code --tls-cert}, {@code --tls-key}). */
    public Builder tls(ServerTls tls) {
      once("tls");
      this.tls = Optional.of(tls);
      return this;
    }

    public FrontendConfig build() {
      return new FrontendConfig(
          host,
          port,
          protocol,
          limits,
          longPollTimeout,
          sseMaxDuration,
          maxChunkBytes,
          ioThreads,
          backlog,
          connectionLimits,
          allowedHosts != null ? allowedHosts : AllowedHosts.forListener(host, List.of()),
          corsOrigins,
          tls);
    }
  }
}
