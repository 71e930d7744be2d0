package io.picomq.node;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.server.metadata.NodeLiveness;
import io.picomq.sql.backend.MetaUrl;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Everything a node is started with. Build one with {@link #builder}: {@code nodeEpoch}, {@code
 * metaUrl} and {@code storage} are required, every other setting has the default {@code pico serve}
 * uses, and setting one twice is an error (it is always a mistake in the caller). {@code pico
 * serve} builds it from flags and {@code PICO_*} variables.
 *
 * <p>Design note on its length (past 500 lines): it is one flat record of every setting and its
 * builder, one short method per setting; settings that belong together are records of their own
 * ({@link ConnectionSettings}, {@link ExposureSettings}, {@link AccessSettings}).
 *
 * @param nodeId the node's stable id (default 1)
 * @param nodeEpoch this process's epoch: larger than the epoch of every earlier process of the same
 *     node id, so the metadata plane fences them (required; {@code pico serve} takes the clock's
 *     milliseconds at start)
 * @param clusterId the cluster's name (default {@code picomq})
 * @param slots placement slots (default 1)
 * @param listen host:port of the protocol listener, port 0 for a free one (default {@code
 *     127.0.0.1:4437})
 * @param adminListen host:port of the admin listener, empty for none (default {@code
 *     127.0.0.1:9090})
 * @param httpAddress the base URL other nodes redirect clients to; empty (the default) means {@code
 *     http://{listen}} ({@code https://} with {@code tls}) with the port the listener bound
 * @param backlog the protocol listener's accept backlog (default 1024)
 * @param shutdownDrain how long {@link Node#close} lets requests finish (default 0)
 * @param metaUrl the metadata database: {@code sqlite::memory:}, {@code sqlite:PATH} or {@code
 *     postgres://user:pass@host:port/db} (required; a SQLite file's directory must exist)
 * @param metaPassword the Postgres password when {@code metaUrl} holds none: kept out of the URL so
 *     it shows in no process list ({@code pico serve} reads it from {@code PICO_META_PASSWORD} or
 *     {@code --meta-password-file}); empty (the default) for none
 * @param storage the data bucket, e.g. {@code -2@file:///var/lib/picomq/objects} or {@code
 *     0@s3://bucket?region=...} (required; a file:// directory must exist)
 * @param wal the WAL bucket, empty (the default) to share the data bucket's storage under the next
 *     id
 * @param redirect route requests for streams another node owns there (default); false serves
 *     everything here ({@code --routing local})
 * @param protocol the protocol listener's protocol (default {@link ListenerProtocol#PICO})
 * @param longPollTimeout how long a long-poll waits (default 25 s)
 * @param sseMaxDuration how long one SSE response lasts (default 55 s)
 * @param maxChunkBytes body bytes per read response (default 64 KiB)
 * @param walCacheSizeBytes the engine's log cache, empty for the engine's default
 * @param blockCacheSizeBytes the engine's block cache, empty for the engine's default
 * @param walUploadThresholdBytes upload a block at this size, empty for the engine's default
 * @param walUploadIntervalMillis also upload a block this long after it opened, empty for the
 *     engine's default
 * @param requestTimeout the longest a request waits on object storage or the metadata log before it
 *     answers 503 (default 30 s)
 * @param connections header and idle timeouts and the listeners' connection caps (default {@link
 *     ConnectionSettings#DEFAULT})
 * @param nodeTtl how long one renewal of the node's liveness row keeps it alive; renewed every
 *     quarter of it (default 10 s, at least {@link NodeLiveness#MIN_TTL})
 * @param exposure the listeners' host check and CORS origins (default {@link
 *     ExposureSettings#DEFAULT})
 * @param tls the PEM certificate and key both listeners serve TLS with (h2 and http/1.1 through
 *     ALPN; read again on SIGHUP); empty (the default) for cleartext
 * @param access access control, the root token and the {@code --insecure} consent (default {@link
 *     AccessSettings#DEFAULT}: off, and loopback only)
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
    Optional<Secret> metaPassword,
    String storage,
    Optional<String> wal,
    boolean redirect,
    ListenerProtocol protocol,
    Duration longPollTimeout,
    Duration sseMaxDuration,
    int maxChunkBytes,
    OptionalLong walCacheSizeBytes,
    OptionalLong blockCacheSizeBytes,
    OptionalLong walUploadThresholdBytes,
    OptionalLong walUploadIntervalMillis,
    Duration requestTimeout,
    ConnectionSettings connections,
    Duration nodeTtl,
    ExposureSettings exposure,
    Optional<TlsSettings> tls,
    AccessSettings access) {

  public static final int DEFAULT_NODE_ID = 1;
  public static final String DEFAULT_CLUSTER_ID = "picomq";
  public static final String DEFAULT_LISTEN = "127.0.0.1:4437";
  public static final String DEFAULT_ADMIN_LISTEN = "127.0.0.1:9090";
  public static final int DEFAULT_BACKLOG = 1024;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  public NodeConfig {
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(adminListen, "adminListen");
    Objects.requireNonNull(httpAddress, "httpAddress");
    Objects.requireNonNull(shutdownDrain, "shutdownDrain");
    Objects.requireNonNull(metaUrl, "metaUrl");
    Objects.requireNonNull(storage, "storage");
    Objects.requireNonNull(wal, "wal");
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(connections, "connections");
    Objects.requireNonNull(nodeTtl, "nodeTtl");
    Objects.requireNonNull(metaPassword, "metaPassword");
    Objects.requireNonNull(exposure, "exposure");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(access, "access");
    require(nodeId >= 0, "nodeId must be >= 0, not " + nodeId);
    require(nodeEpoch >= 0, "nodeEpoch must be >= 0, not " + nodeEpoch);
    require(slots >= 0, "slots must be >= 0, not " + slots);
    require(backlog >= 1, "backlog must be >= 1, not " + backlog);
    require(!shutdownDrain.isNegative(), "shutdownDrain must not be negative: " + shutdownDrain);
    require(!metaUrl.isBlank(), "metaUrl must not be blank");
    require(!storage.isBlank(), "storage must not be blank");
    require(
        requestTimeout.isPositive(),
        "requestTimeout (--request-timeout-sec) must be positive, not " + requestTimeout);
    require(
        nodeTtl.compareTo(NodeLiveness.MIN_TTL) >= 0,
        "nodeTtl (--node-ttl) must be at least "
            + NodeLiveness.MIN_TTL.toMillis()
            + " ms, not "
            + nodeTtl.toMillis()
            + " ms");
    requirePositive("walCacheSizeBytes", walCacheSizeBytes);
    requirePositive("blockCacheSizeBytes", blockCacheSizeBytes);
    requirePositive("walUploadThresholdBytes", walUploadThresholdBytes);
    requirePositive("walUploadIntervalMillis", walUploadIntervalMillis);
    // LiveOptions validates the durations and the chunk size, HostPort the addresses.
    new LiveOptions(longPollTimeout, sseMaxDuration, maxChunkBytes);
    HostPort.parse(listen);
    adminListen.ifPresent(HostPort::parse);
    if (metaPassword.isPresent()) {
      metaDatabase(metaUrl, metaPassword);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings; each may be overridden once. */
  public Builder newBuilder() {
    Builder b = new Builder();
    b.nodeId = nodeId;
    b.nodeEpoch = nodeEpoch;
    b.clusterId = clusterId;
    b.slots = slots;
    b.listen = listen;
    b.adminListen = adminListen;
    b.httpAddress = httpAddress;
    b.backlog = backlog;
    b.shutdownDrain = shutdownDrain;
    b.metaUrl = metaUrl;
    b.metaPassword = metaPassword;
    b.storage = storage;
    b.wal = wal;
    b.redirect = redirect;
    b.protocol = protocol;
    b.longPollTimeout = longPollTimeout;
    b.sseMaxDuration = sseMaxDuration;
    b.maxChunkBytes = maxChunkBytes;
    b.walCacheSizeBytes = walCacheSizeBytes;
    b.blockCacheSizeBytes = blockCacheSizeBytes;
    b.walUploadThresholdBytes = walUploadThresholdBytes;
    b.walUploadIntervalMillis = walUploadIntervalMillis;
    b.requestTimeout = requestTimeout;
    b.connections = connections;
    b.nodeTtl = nodeTtl;
    b.exposure = exposure;
    b.tls = tls;
    b.access = access;
    return b;
  }

  /**
   * The metadata database: {@code metaUrl} parsed, with {@code metaPassword} when given.
   *
   * @throws IllegalArgumentException if {@code metaUrl} is malformed, or a password is given for a
   *     SQLite database or for a URL that holds one already
   */
  public MetaUrl metaDatabase() {
    return metaDatabase(metaUrl, metaPassword);
  }

  // Static: the compact constructor calls it before the fields are set.
  private static MetaUrl metaDatabase(String metaUrl, Optional<Secret> metaPassword) {
    MetaUrl url = MetaUrl.parse(metaUrl);
    if (metaPassword.isEmpty()) {
      return url;
    }
    if (!(url instanceof MetaUrl.Postgres postgres)) {
      throw new IllegalArgumentException(
          "a metadata password is given, but " + url.redacted() + " is no Postgres database");
    }
    return postgres.withPassword(metaPassword.get().reveal());
  }

  /** Whether {@code metaUrl} itself holds a password (which a command line would show). */
  public boolean metaUrlHoldsPassword() {
    return MetaUrl.parse(metaUrl) instanceof MetaUrl.Postgres postgres
        && postgres.password().isPresent();
  }

  /** The address clients are redirected to when another node owns their stream. */
  String advertisedAddress(int boundPort) {
    return httpAddress.orElseGet(
        () -> scheme() + "://" + HostPort.parse(listen).host() + ":" + boundPort);
  }

  /** {@code https} when the listeners serve TLS, else {@code http}. */
  public String scheme() {
    return tls.isPresent() ? "https" : "http";
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  private static void requirePositive(String setting, OptionalLong value) {
    value.ifPresent(v -> require(v > 0, setting + " must be positive, not " + v));
  }

  /** A parsed {@code host:port}. */
  record HostPort(String host, int port) {
    static HostPort parse(String text) {
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

  /**
   * Collects settings; {@link #build()} checks them. Setting the same thing twice is an error (it
   * is almost always a bug in the caller's wiring). {@code nodeEpoch}, {@code metaUrl} and {@code
   * storage} have no default: where a node keeps its data, and which process it is, are the
   * caller's to say.
   */
  public static final class Builder {
    private final Set<String> given = new HashSet<>();
    private int nodeId = DEFAULT_NODE_ID;
    private long nodeEpoch = -1;
    private String clusterId = DEFAULT_CLUSTER_ID;
    private int slots = 1;
    private String listen = DEFAULT_LISTEN;
    private Optional<String> adminListen = Optional.of(DEFAULT_ADMIN_LISTEN);
    private Optional<String> httpAddress = Optional.empty();
    private int backlog = DEFAULT_BACKLOG;
    private Duration shutdownDrain = Duration.ZERO;
    private String metaUrl;
    private Optional<Secret> metaPassword = Optional.empty();
    private String storage;
    private Optional<String> wal = Optional.empty();
    private boolean redirect = true;
    private ListenerProtocol protocol = ListenerProtocol.PICO;
    private Duration longPollTimeout = LiveOptions.DEFAULT.longPollTimeout();
    private Duration sseMaxDuration = LiveOptions.DEFAULT.sseMaxDuration();
    private int maxChunkBytes = LiveOptions.DEFAULT.maxChunkBytes();
    private OptionalLong walCacheSizeBytes = OptionalLong.empty();
    private OptionalLong blockCacheSizeBytes = OptionalLong.empty();
    private OptionalLong walUploadThresholdBytes = OptionalLong.empty();
    private OptionalLong walUploadIntervalMillis = OptionalLong.empty();
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private ConnectionSettings connections = ConnectionSettings.DEFAULT;
    private Duration nodeTtl = NodeLiveness.DEFAULT_TTL;
    private ExposureSettings exposure = ExposureSettings.DEFAULT;
    private Optional<TlsSettings> tls = Optional.empty();
    private AccessSettings access = AccessSettings.DEFAULT;

    private Builder() {}

    private void once(String setting) {
      if (!given.add(setting)) {
        throw new IllegalStateException(setting + " was already set");
      }
    }

    public Builder nodeId(int nodeId) {
      once("nodeId");
      this.nodeId = nodeId;
      return this;
    }

    public Builder nodeEpoch(long nodeEpoch) {
      once("nodeEpoch");
      this.nodeEpoch = nodeEpoch;
      return this;
    }

    public Builder clusterId(String clusterId) {
      once("clusterId");
      this.clusterId = clusterId;
      return this;
    }

    public Builder slots(int slots) {
      once("slots");
      this.slots = slots;
      return this;
    }

    public Builder listen(String hostPort) {
      once("listen");
      this.listen = hostPort;
      return this;
    }

    /** The admin listener's host:port. */
    public Builder adminListen(String hostPort) {
      once("adminListen");
      this.adminListen = Optional.of(hostPort);
      return this;
    }

    /** Runs no admin listener (no health, readiness, metrics or dashboard over HTTP). */
    public Builder noAdminListener() {
      once("adminListen");
      this.adminListen = Optional.empty();
      return this;
    }

    public Builder httpAddress(String baseUrl) {
      once("httpAddress");
      this.httpAddress = Optional.of(baseUrl);
      return this;
    }

    public Builder backlog(int backlog) {
      once("backlog");
      this.backlog = backlog;
      return this;
    }

    public Builder shutdownDrain(Duration shutdownDrain) {
      once("shutdownDrain");
      this.shutdownDrain = shutdownDrain;
      return this;
    }

    public Builder metaUrl(String metaUrl) {
      once("metaUrl");
      this.metaUrl = metaUrl;
      return this;
    }

    /** The Postgres password, when {@code metaUrl} holds none. */
    public Builder metaPassword(Secret metaPassword) {
      once("metaPassword");
      this.metaPassword = Optional.of(metaPassword);
      return this;
    }

    public Builder storage(String storage) {
      once("storage");
      this.storage = storage;
      return this;
    }

    public Builder wal(String wal) {
      once("wal");
      this.wal = Optional.of(wal);
      return this;
    }

    public Builder redirect(boolean redirect) {
      once("redirect");
      this.redirect = redirect;
      return this;
    }

    public Builder protocol(ListenerProtocol protocol) {
      once("protocol");
      this.protocol = protocol;
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

    public Builder walCacheSizeBytes(long walCacheSizeBytes) {
      once("walCacheSizeBytes");
      this.walCacheSizeBytes = OptionalLong.of(walCacheSizeBytes);
      return this;
    }

    public Builder blockCacheSizeBytes(long blockCacheSizeBytes) {
      once("blockCacheSizeBytes");
      this.blockCacheSizeBytes = OptionalLong.of(blockCacheSizeBytes);
      return this;
    }

    public Builder walUploadThresholdBytes(long walUploadThresholdBytes) {
      once("walUploadThresholdBytes");
      this.walUploadThresholdBytes = OptionalLong.of(walUploadThresholdBytes);
      return this;
    }

    public Builder walUploadIntervalMillis(long walUploadIntervalMillis) {
      once("walUploadIntervalMillis");
      this.walUploadIntervalMillis = OptionalLong.of(walUploadIntervalMillis);
      return this;
    }

    public Builder requestTimeout(Duration requestTimeout) {
      once("requestTimeout");
      this.requestTimeout = requestTimeout;
      return this;
    }

    public Builder connections(ConnectionSettings connections) {
      once("connections");
      this.connections = connections;
      return this;
    }

    /** How long a renewal of the node's liveness row keeps it alive ({@code --node-ttl}). */
    public Builder nodeTtl(Duration nodeTtl) {
      once("nodeTtl");
      this.nodeTtl = nodeTtl;
      return this;
    }

    /** The listeners' host check and CORS origins. */
    public Builder exposure(ExposureSettings exposure) {
      once("exposure");
      this.exposure = exposure;
      return this;
    }

    /** Both listeners serve TLS with these files ({@code --tls-cert}, {@code --tls-key}). */
    public Builder tls(TlsSettings tls) {
      once("tls");
      this.tls = Optional.of(tls);
      return this;
    }

    /** Access control, the root token, and whether to listen beyond loopback without it. */
    public Builder access(AccessSettings access) {
      once("access");
      this.access = access;
      return this;
    }

    public NodeConfig build() {
      if (nodeEpoch < 0 && !given.contains("nodeEpoch")) {
        throw new IllegalStateException("nodeEpoch is required");
      }
      if (metaUrl == null) {
        throw new IllegalStateException("metaUrl is required");
      }
      if (storage == null) {
        throw new IllegalStateException("storage is required");
      }
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
          metaPassword,
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
          connections,
          nodeTtl,
          exposure,
          tls,
          access);
    }
  }
}
