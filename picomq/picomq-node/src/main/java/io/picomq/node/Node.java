package io.picomq.node;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.access.AccessCheck;
import io.picomq.frontend.access.Audience;
import io.picomq.frontend.http.AccessControl;
import io.picomq.frontend.http.ConnectionLimits;
import io.picomq.frontend.http.RequestObserver;
import io.picomq.frontend.tls.ServerTls;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.s3stream.S3Stream;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.StorageHealth;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.Failover;
import io.picomq.server.metadata.HandoffCompletions;
import io.picomq.server.metadata.Maintenance;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.metadata.NodeLiveness;
import io.picomq.server.metadata.PlaneObjectManager;
import io.picomq.server.metadata.PlaneStreamManager;
import io.picomq.server.metadata.Transfers;
import io.picomq.server.routing.ViewRouter;
import io.picomq.server.service.Arrivals;
import io.picomq.server.service.EngineStreamService;
import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.liveness.NodeState;
import io.picomq.stream.StreamRouter;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running PicoMQ node: the library behind {@code pico serve}, and what anything else that hosts a
 * node embeds.
 *
 * <pre>{@code
 * NodeConfig config =
 *     NodeConfig.builder()
 *         .nodeEpoch(clock.millis())
 *         .metaUrl("sqlite:/var/lib/picomq/meta.db")
 *         .storage("-2@file:///var/lib/picomq/objects")
 *         .listen("127.0.0.1:0")
 *         .build();
 * try (Node node = Node.start(config)) {
 *   URI base = URI.create("http://127.0.0.1:" + node.address().getPort());
 *   ...
 * }
 * }</pre>
 *
 * <p>Start order: liveness (the node owns a live row before it registers), metadata plane (catch
 * up, register this process), engine (recover the WAL of earlier processes), stream service,
 * maintenance, failover (taking over dead nodes' WALs), transfers and arrivals, protocol listener,
 * admin listener; only then is it ready. Stop order is the reverse: fail readiness, drain and close
 * the listeners, stop failover, flush and stop the engine (which closes its streams in the metadata
 * plane), stop maintenance, delete the liveness row, leave the plane.
 *
 * <p>Threading: {@link #start} and {@link #stop} block and are called by one thread; the accessors
 * and {@link #ready()} may be read by any.
 *
 * <p>Design note on its length (about 500 lines): it is the one place a node is assembled, part by
 * part in the order above; each part is a class of its own and this file only wires them.
 */
public final class Node implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);
  private static final Duration MAINTENANCE_INTERVAL = Duration.ofSeconds(5);
  private static final Duration EXPIRY_INTERVAL = Duration.ofSeconds(1);
  private static final Duration ADVERTISE_TIMEOUT = Duration.ofSeconds(30);

  private final NodeConfig config;
  private final Clock clock;
  private final ExecutorService serviceThreads = Executors.newVirtualThreadPerTaskExecutor();
  private final ReentrantLock lifecycle = new ReentrantLock();

  /** Every meter of this node (engine and requests); {@code GET /metrics} scrapes it. */
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  private volatile boolean ready;
  private volatile boolean stopping;

  /** Completes once this process learns it was taken over (see {@link #replaced()}). */
  private final CompletableFuture<String> replaced = new CompletableFuture<>();

  // Set once by start(), before ready; they stay valid after stop for a caller's messages.
  private volatile InetSocketAddress address;
  private volatile Optional<InetSocketAddress> adminAddress = Optional.empty();

  // Written by start() and stop() only (one thread).
  private MetadataPlane plane;
  private NodeLiveness liveness;
  private StreamEngine engine;
  private EngineStreamService service;
  private Maintenance maintenance;
  private Failover failover;
  private Transfers transfers;
  private Arrivals arrivals;
  private Frontend frontend;
  private AdminListener admin;
  private AccessTokens accessTokens;
  private Thread expiry;

  /** Both listeners' certificate, empty in cleartext; set by start() before the listeners. */
  private volatile Optional<ServerTls> tls = Optional.empty();

  private Node(NodeConfig config, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Starts a node on the system clock; see {@link #start(NodeConfig, Clock)}. */
  public static Node start(NodeConfig config) throws Exception {
    return start(config, Clock.systemUTC());
  }

  /**
   * Starts a node: every part in order, and returns once it serves and is ready (unless its storage
   * or metadata database already fails: {@link #notReadyBecause}). On failure it stops what started
   * and rethrows; the caller owns the returned node and closes it.
   */
  public static Node start(NodeConfig config, Clock clock) throws Exception {
    Node node = new Node(config, clock);
    node.startOnce();
    return node;
  }

  private void startOnce() throws Exception {
    lifecycle.lock();
    try {
      startParts();
    } catch (Exception | Error e) {
      stopParts(Duration.ZERO);
      throw e;
    } finally {
      lifecycle.unlock();
    }
  }

  private void startParts() throws Exception {
    NodeConfig.HostPort listen = NodeConfig.HostPort.parse(config.listen());
    // Read first: a bad certificate file stops the start before anything touches the database.
    tls = config.tls().map(settings -> ServerTls.load(settings.files()));
    AccessBootstrap.refuseOpenListeners(config);
    // With port 0 the bound port is known only once the frontend listens, and the frontend needs
    // the plane: such a node registers with port 0 first and advertises the real port below.
    NodeIdentity identity =
        new NodeIdentity(
            config.nodeId(),
            config.nodeEpoch(),
            config.advertisedAddress(listen.port()),
            config.slots());
    plane = MetadataPlane.open(config.metaDatabase(), BackendOptions.defaults(), identity, clock);
    liveness = plane.liveness(config.nodeTtl());
    liveness.start();
    plane.addListener(view -> watchStanding(view.state()));
    accessTokens = AccessTokens.on(plane, config.nodeId());
    plane.start();
    if (config.access().enabled()) {
      // Also reports what this node enforces: changes made while it was down are confirmed.
      AccessBootstrap.ensure(plane, accessTokens, config.access(), clock);
    }
    HandoffCompletions handoffCompletions = new HandoffCompletions(plane);
    EngineConfig.Builder engineConfig =
        EngineConfig.builder()
            .nodeId(config.nodeId())
            .nodeEpoch(config.nodeEpoch())
            .clusterId(config.clusterId());
    config.walCacheSizeBytes().ifPresent(engineConfig::walCacheSizeBytes);
    config.blockCacheSizeBytes().ifPresent(engineConfig::blockCacheSizeBytes);
    config.walUploadThresholdBytes().ifPresent(engineConfig::walUploadThresholdBytes);
    config.walUploadIntervalMillis().ifPresent(engineConfig::walUploadIntervalMillis);
    S3Stream.Builder builder =
        S3Stream.builder()
            .config(engineConfig.build())
            .storage(config.storage())
            .streamManager(new PlaneStreamManager(plane, handoffCompletions))
            .objectManager(new PlaneObjectManager(plane, clock))
            .clock(clock)
            .meterRegistry(metrics);
    config.wal().ifPresent(builder::wal);
    engine = builder.build();
    engine.start().join();
    StreamRouter router =
        new ViewRouter(
            plane,
            config.nodeId(),
            config.redirect(),
            (nodeId, nodeEpoch) -> liveness.state(nodeId, nodeEpoch) == NodeState.DEAD);
    service =
        new EngineStreamService(
            plane,
            engine,
            clock,
            serviceThreads,
            PooledByteBufAllocator.DEFAULT,
            config.requestTimeout(),
            liveness::mayAcknowledge,
            router);
    service.loadExpiring();
    // The lease holder deletes destroyed objects' bytes through this engine (GC phase one).
    maintenance =
        new Maintenance(plane, Optional.of(engine::deleteObjects), clock, MAINTENANCE_INTERVAL);
    maintenance.start();
    // Any node may take over a dead one's WAL; all compute the same taker from the liveness rows.
    failover = new Failover(plane, liveness, engine::takeOver);
    failover.start();
    // Each node does its part of the transfers it sees: hands off, completes, falls back.
    transfers = new Transfers(plane, liveness, service::handOff, handoffCompletions);
    transfers.start();
    // Streams that arrive here open elsewhere (a transfer, a takeover) are opened at once.
    arrivals = new Arrivals(plane, liveness::mayAcknowledge, service::openArrived);
    arrivals.start();
    expiry = Thread.ofVirtual().name("picomq-expiry").start(this::expireLoop);
    ConnectionLimits protocolLimits = connectionLimits();
    // Both listeners answer to the advertised name too: redirects from other nodes point there.
    String advertised = config.advertisedAddress(listen.port());
    ExposureSettings exposure = config.exposure();
    FrontendConfig.Builder frontendConfig =
        FrontendConfig.builder()
            .host(listen.host())
            .port(listen.port())
            .backlog(config.backlog())
            .protocol(config.protocol())
            .longPollTimeout(config.longPollTimeout())
            .sseMaxDuration(config.sseMaxDuration())
            .maxChunkBytes(config.maxChunkBytes())
            .connectionLimits(protocolLimits)
            .allowedHosts(exposure.hostsFor(listen.host(), advertised))
            .corsOrigins(exposure.corsOrigins());
    tls.ifPresent(frontendConfig::tls);
    frontend =
        Frontend.start(
            frontendConfig.build(),
            service,
            clock,
            router,
            requestMeter(),
            config.access().enabled() ? Optional.of(accessTokens) : Optional.empty());
    ConnectionMeters.bind(
        metrics,
        config.protocol().name().toLowerCase(java.util.Locale.ROOT),
        frontend.connections());
    if (config.httpAddress().isEmpty() && listen.port() == 0) {
      advertise(identity, config.advertisedAddress(frontend.address().getPort()));
    }
    if (config.adminListen().isPresent()) {
      NodeConfig.HostPort adminAt = NodeConfig.HostPort.parse(config.adminListen().get());
      admin =
          AdminListener.start(
              adminAt.host(),
              adminAt.port(),
              this,
              config.connections().adminLimits(),
              exposure.hostsFor(adminAt.host(), advertised),
              exposure.adminCorsOrigins(),
              tls,
              config.access().enabled()
                  ? new AccessCheck(accessTokens, Audience.ADMIN, AdminNeeds.INSTANCE, clock)
                  : AccessControl.OPEN,
              new TokenVerbs(
                  plane,
                  accessTokens,
                  config.access().enabled(),
                  liveness::view,
                  config.nodeTtl().multipliedBy(2),
                  clock));
      ConnectionMeters.bind(metrics, "admin", admin.connections());
    }
    address = frontend.address();
    adminAddress = Optional.ofNullable(admin).map(AdminListener::address);
    ready = true;
    LOG.info(
        "node {} epoch {} serving {} on {}{}; metadata {}; storage {}",
        config.nodeId(),
        config.nodeEpoch(),
        config.protocol().name().toLowerCase(java.util.Locale.ROOT),
        frontend.address(),
        admin != null ? ", admin on " + admin.address() : "",
        plane.description(),
        config.storage());
  }

  /**
   * The protocol listener's limits, its cap derived from the process's descriptor limit unless set;
   * a cap that leaves too few descriptors for the rest of the node is started with a warning.
   */
  private ConnectionLimits connectionLimits() {
    long maxFileDescriptors = ConnectionMeters.bindFileDescriptors(metrics);
    ConnectionSettings connections = config.connections();
    ConnectionLimits limits = connections.protocolLimits(maxFileDescriptors);
    if (!connections.fitsIn(maxFileDescriptors)) {
      LOG.warn(
          "{} protocol and {} admin connections leave less than a quarter of the process's {} file"
              + " descriptors for storage and files; raise the limit (ulimit -Hn) or lower"
              + " --max-connections",
          limits.maxConnections(),
          connections.adminMaxConnections(),
          maxFileDescriptors);
    }
    return limits;
  }

  /** Registers this node process again, same epoch, at {@code address} (an update). */
  private void advertise(NodeIdentity identity, String address) throws Exception {
    plane
        .proposeAccepted(
            new Command.RegisterNode(
                identity.nodeId(), identity.nodeEpoch(), address, identity.slots()))
        .get(ADVERTISE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Records each protocol request in {@code picomq.http.requests}, tagged by protocol, method and
   * status only: stream names would make the number of series unbounded.
   */
  private RequestObserver requestMeter() {
    // One timer per protocol, method and status, found by a map lookup: building the meter's id
    // (its tags sorted) on every request cost a few percent of a create's CPU (JFR, wrk creates).
    record Key(String protocol, String method, int status) {}
    ConcurrentHashMap<Key, Timer> timers = new ConcurrentHashMap<>();
    return (protocol, method, status, elapsed) ->
        timers
            .computeIfAbsent(
                new Key(protocol, method.name(), status),
                key ->
                    Timer.builder("picomq.http.requests")
                        .description("Protocol requests by protocol, method and status")
                        .tag("protocol", key.protocol())
                        .tag("method", key.method())
                        .tag("status", key.status() == 0 ? "none" : Integer.toString(key.status()))
                        .register(metrics))
            .record(elapsed);
  }

  private void expireLoop() {
    while (!stopping) {
      try {
        Thread.sleep(EXPIRY_INTERVAL);
        service.expireDue();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.warn("expiry sweep failed: {}", e.toString());
      }
    }
  }

  /**
   * Completes this node's {@link #replaced()} future once the metadata says this process may act no
   * more: another node took it over (it stopped renewing its liveness, e.g. paused past its TTL),
   * or a newer process of the same node id registered.
   */
  private void watchStanding(MetadataState state) {
    NodeRecord me = state.nodes().get(config.nodeId());
    if (me == null || replaced.isDone()) {
      return;
    }
    if (me.nodeEpoch() > config.nodeEpoch()) {
      replaced.complete(
          "a newer process (epoch " + me.nodeEpoch() + ") of node " + me.nodeId() + " registered");
    } else if (me.nodeEpoch() == config.nodeEpoch() && me.isTakenOver()) {
      replaced.complete(
          "node "
              + me.takerNodeId()
              + " took this process over (epoch "
              + me.nodeEpoch()
              + "): it had stopped renewing its liveness");
    }
  }

  /**
   * Completes, with the reason, once this process learns that it may act no more: another node took
   * its streams over, or a newer process of its node id started. Nothing it acknowledged is lost,
   * but it can append nothing more; {@link NodeSupervisor} then restarts the node with a new epoch.
   */
  public CompletableFuture<String> replaced() {
    return replaced.copy();
  }

  /** Whether the node serves and is registered (what {@code GET /ready} answers). */
  public boolean ready() {
    return notReadyBecause().isEmpty();
  }

  /**
   * Why the node is not ready, or empty when it is: starting or stopping, the metadata log stopped
   * or its database failing ({@link MetadataPlane#trouble()}), or object storage failing ({@link
   * StreamEngine#storageHealth()}). Both recover on their own, and readiness with them.
   */
  public Optional<String> notReadyBecause() {
    boolean up = ready; // read first: start() sets it after plane and engine
    MetadataPlane metadata = plane;
    StreamEngine storage = engine;
    if (!up || metadata == null || storage == null) {
      return Optional.of(stopping ? "stopping" : "starting");
    }
    Optional<String> trouble = metadata.trouble();
    if (trouble.isPresent()) {
      return trouble;
    }
    if (storage.storageHealth() instanceof StorageHealth.Failing failing) {
      return Optional.of(
          (failing.noSpace() ? "object storage is out of space: " : "object storage fails: ")
              + failing.detail());
    }
    return Optional.empty();
  }

  /** Where the protocol listener listens (with the bound port when {@code listen} asked for 0). */
  public InetSocketAddress address() {
    return address;
  }

  /** Where the admin listener listens; empty when the node runs none. */
  public Optional<InetSocketAddress> adminAddress() {
    return adminAddress;
  }

  /**
   * Reads the TLS certificate and key files again (what {@code pico serve} does on SIGHUP): new
   * connections to both listeners get the new certificate, open ones keep theirs. A bad file logs
   * one line and leaves the certificate in use.
   *
   * @return whether the new files were taken; false also when the node serves no TLS
   */
  public boolean reloadTls() {
    return tls.map(ServerTls::reload).orElse(false);
  }

  public NodeConfig config() {
    return config;
  }

  /** The node's meter registry, in Prometheus form. */
  PrometheusMeterRegistry metrics() {
    return metrics;
  }

  /** The metadata database in words, passwords left out (for a start-up line). */
  public String metadataDescription() {
    return plane.description();
  }

  MetadataPlane plane() {
    return plane;
  }

  /** This node's liveness: its own row's renewal and every node's live, suspect or dead state. */
  NodeLiveness liveness() {
    return liveness;
  }

  /**
   * Graceful stop: fail readiness, let in-flight requests finish for up to {@code drain}, close the
   * listeners, flush the engine, leave the metadata plane. Idempotent.
   */
  public void stop(Duration drain) {
    lifecycle.lock();
    try {
      stopParts(drain);
    } finally {
      lifecycle.unlock();
    }
  }

  private void stopParts(Duration drain) {
    ready = false;
    stopping = true;
    if (frontend != null) {
      frontend.shutdown(drain).join();
      frontend = null;
    }
    if (admin != null) {
      admin.close();
      admin = null;
    }
    if (expiry != null) {
      expiry.interrupt();
      expiry = null;
    }
    if (arrivals != null) {
      arrivals.close();
      arrivals = null;
    }
    if (transfers != null) {
      transfers.close();
      transfers = null;
    }
    if (failover != null) {
      failover.close();
      failover = null;
    }
    if (engine != null) {
      try {
        engine.shutdown().join();
      } catch (RuntimeException e) {
        LOG.warn("engine shutdown failed: {}", e.toString());
      }
      engine = null;
    }
    serviceThreads.shutdownNow();
    if (maintenance != null) {
      maintenance.close();
      maintenance = null;
    }
    if (liveness != null) {
      liveness.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  @Override
  public void close() {
    stop(config.shutdownDrain());
  }
}
