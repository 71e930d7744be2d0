package io.picomq.cli.node;

import io.picomq.frontend.Protocol;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything a node is started with; {@code pico serve} builds it from flags and {@code PICO_*}
 * variables.
 *
 * @param listen host:port of the protocol listener (port 0 picks a free one)
 * @param adminListen host:port of the admin listener, empty for none
 * @param httpAddress the base URL other nodes redirect clients to; empty means {@code
 *     http://{listen}}
 * @param backlog the protocol listener's accept backlog
 * @param storage the data bucket, e.g. {@code -2@file://./data/objects}
 * @param wal the WAL bucket, empty to share the data bucket's storage under the next id
 * @param redirect route requests for streams another node owns there (else serve everything here)
 * @param requestTimeout the longest a request waits on object storage or the metadata log before it
 *     answers 503 (see {@code EngineStreamService})
 * @param connections header and idle timeouts and the listeners' connection caps
 */
public record NodeConfig(
    int nodeId,
    long nodeEpoch,
    String clusterId,
    int slots,
    String listen,
    Optional<String> adminListen,
    Optional<String> httpAddress,
    int backlog,
    Duration shutdownDrain,
    String metaUrl,
    String storage,
    Optional<String> wal,
    boolean redirect,
    Protocol protocol,
    Duration longPollTimeout,
    Duration sseMaxDuration,
    int maxChunkBytes,
    OptionalLong walCacheSizeBytes,
    OptionalLong blockCacheSizeBytes,
    OptionalLong walUploadThresholdBytes,
    OptionalLong walUploadIntervalMillis,
    Duration requestTimeout,
    ConnectionSettings connections) {

  public NodeConfig {
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (!requestTimeout.isPositive()) {
      throw new IllegalArgumentException(
          "--request-timeout-sec must be positive, not " + requestTimeout.toSeconds());
    }
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(connections, "connections");
    Objects.requireNonNull(metaUrl, "metaUrl");
    Objects.requireNonNull(storage, "storage");
    HostPort.parse(listen);
    adminListen.ifPresent(HostPort::parse);
  }

  /** A copy with other connection settings. */
  public NodeConfig withConnections(ConnectionSettings connections) {
    return new NodeConfig(
        nodeId,
        nodeEpoch,
        clusterId,
        slots,
        listen,
        adminListen,
        httpAddress,
        backlog,
        shutdownDrain,
        metaUrl,
        storage,
        wal,
        redirect,
        protocol,
        longPollTimeout,
        sseMaxDuration,
        maxChunkBytes,
        walCacheSizeBytes,
        blockCacheSizeBytes,
        walUploadThresholdBytes,
        walUploadIntervalMillis,
        requestTimeout,
        connections);
  }

  /** The address clients are redirected to when another node owns their stream. */
  public String advertisedAddress(int boundPort) {
    return httpAddress.orElseGet(() -> "http://" + HostPort.parse(listen).host() + ":" + boundPort);
  }

  /** A parsed {@code host:port}. */
  public record HostPort(String host, int port) {
    public static HostPort parse(String text) {
      int colon = text.lastIndexOf(':');
      if (colon <= 0 || colon == text.length() - 1) {
        throw new IllegalArgumentException("expected host:port, got '" + text + "'");
      }
      int port;
      try {
        port = Integer.parseInt(text.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad port in '" + text + "'", e);
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range in '" + text + "'");
      }
      String host = text.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      return new HostPort(host, port);
    }
  }
}
