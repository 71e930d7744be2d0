package io.picomq.server.metadata;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.s3stream.api.Causes;
import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.lease.LeaseOptions;
import io.picomq.sql.lease.LeaseState;
import io.picomq.sql.lease.MaintenanceLease;
import io.picomq.sql.log.LogOptions;
import io.picomq.sql.log.SqlLog;
import io.picomq.sql.log.View;
import io.picomq.sql.log.ViewListener;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's handle on the metadata plane: the SQL log replicating {@link
 * io.picomq.meta.MetadataMachine}, the node's registration and the maintenance lease.
 *
 * <p>Lifecycle: {@link #open} connects (and creates the schema), {@link #start()} catches up with
 * the log, registers this node process and starts campaigning for the lease; {@link #close()}
 * releases the lease, stops the log and disconnects. Reads ({@link #view()}) never touch SQL.
 *
 * <p>Threading: every method may be called from any thread; {@link #start()} blocks (JDBC), the
 * others return futures or read the published view.
 */
public final class MetadataPlane implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataPlane.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

  private final SqlBackend backend;
  private final SqlLog<MetadataState, Command, Result> log;
  private final MaintenanceLease lease;
  private final NodeIdentity identity;
  private final String description;

  private MetadataPlane(
      SqlBackend backend,
      SqlLog<MetadataState, Command, Result> log,
      MaintenanceLease lease,
      NodeIdentity identity,
      String description) {
    this.backend = backend;
    this.log = log;
    this.lease = lease;
    this.identity = identity;
    this.description = description;
  }

  /**
   * Connects to the database {@code metaUrl} names ({@code sqlite::memory:}, {@code sqlite:PATH},
   * {@code postgres://...}) and makes sure the schema exists. Starts nothing.
   *
   * @throws SQLException if the database cannot be reached, or (for a SQLite file) another node has
   *     it open
   */
  public static MetadataPlane open(String metaUrl, NodeIdentity identity, Clock clock)
      throws SQLException {
    return open(metaUrl, BackendOptions.defaults(), identity, clock);
  }

  /** As {@link #open(String, NodeIdentity, Clock)}, with backend options (e.g. a table prefix). */
  public static MetadataPlane open(
      String metaUrl, BackendOptions options, NodeIdentity identity, Clock clock)
      throws SQLException {
    return open(MetaUrl.parse(metaUrl), options, identity, clock);
  }

  /**
   * As {@link #open(String, BackendOptions, NodeIdentity, Clock)}, with the URL parsed already
   * (and, for Postgres, perhaps given a password kept out of the URL: {@link
   * MetaUrl.Postgres#withPassword}).
   */
  public static MetadataPlane open(
      MetaUrl url, BackendOptions options, NodeIdentity identity, Clock clock) throws SQLException {
    SqlBackend backend = SqlBackend.open(url, options);
    String name = "node-" + identity.nodeId();
    SqlLog<MetadataState, Command, Result> log =
        new SqlLog<>(backend, new MetadataStateMachine(), logOptions(name));
    MaintenanceLease lease =
        new MaintenanceLease(
            backend, name + "@" + identity.nodeEpoch(), clock, LeaseOptions.defaults());
    return new MetadataPlane(backend, log, lease, identity, url.redacted());
  }

  /** The options of a node's metadata log; the scale benchmark restarts a log with these too. */
  static LogOptions logOptions(String name) {
    LogOptions.Builder logOptions = LogOptions.builder().name(name);
    // The tailer's poll is only a safety net: on SQLite every row comes from this node's flusher,
    // which wakes the tailer itself; on Postgres other nodes' rows also arrive as notifications
    // (LISTEN/NOTIFY). At the default 10 ms the poll was most of an idle node's CPU (100 queries a
    // second; figures in website/pages/docs/operating.md).
    logOptions.pollInterval(POLL_INTERVAL);
    return logOptions.build();
  }

  /**
   * Catches up with the log, registers this node process (a lower epoch than the registered one is
   * refused) and starts campaigning for the maintenance lease. Blocks.
   *
   * @throws MetadataUnavailableException if the log cannot be read or the registration is refused
   */
  public void start() {
    try {
      log.start().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new MetadataUnavailableException(
          "cannot catch up with the metadata log at " + description + ": " + rootMessage(e), e);
    }
    Result registered;
    try {
      registered =
          propose(
                  new Command.RegisterNode(
                      identity.nodeId(),
                      identity.nodeEpoch(),
                      identity.advertisedAddress(),
                      identity.slots()))
              .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new MetadataUnavailableException(
          "cannot register node " + identity.nodeId() + ": " + rootMessage(e), e);
    }
    if (registered instanceof Result.Rejected rejected) {
      throw new MetadataUnavailableException(
          "node "
              + identity.nodeId()
              + " epoch "
              + identity.nodeEpoch()
              + " was refused: "
              + rejected.reason()
              + ": "
              + rejected.message(),
          null);
    }
    lease.start();
    LOG.info(
        "node {} epoch {} registered in {} at index {}",
        identity.nodeId(),
        identity.nodeEpoch(),
        description,
        log.view().appliedIndex());
  }

  public NodeIdentity identity() {
    return identity;
  }

  /**
   * This node's liveness on the plane's database, not started. Start it before {@link #start()} (a
   * node owns a live row before it registers) and close it before {@link #close()}, which closes
   * the database it borrows.
   */
  public NodeLiveness liveness(Duration ttl) {
    return new NodeLiveness(backend, identity, ttl);
  }

  /** The metadata database, with any password removed. */
  public String description() {
    return description;
  }

  /**
   * Proposes a command; completes with its result once this node applied it (so {@link #view()}
   * already shows its effect). Fails only when the log is stopped, closed or overloaded.
   */
  public CompletableFuture<Result> propose(Command command) {
    return log.propose(command);
  }

  /**
   * Proposes a command and completes with its outcome; a rejection fails the future with {@link
   * MetadataRejection}.
   */
  public CompletableFuture<Outcome> proposeAccepted(Command command) {
    return propose(command)
        .thenApply(
            result ->
                switch (result) {
                  case Result.Ok ok -> ok.outcome();
                  case Result.Redundant redundant -> redundant.outcome();
                  case Result.Rejected rejected ->
                      throw new MetadataRejection(command, rejected.reason(), rejected.message());
                });
  }

  /** The latest applied view. Never blocks. */
  public View<MetadataState> view() {
    return log.view();
  }

  public MetadataState state() {
    return log.view().state();
  }

  /** Completes once this node applied row {@code index}. */
  public CompletableFuture<View<MetadataState>> awaitApplied(long index, Duration timeout) {
    return log.awaitApplied(index, timeout);
  }

  /**
   * Completes once this node applied every row the log held when called (one read of the log's
   * head): what to wait for before saying that something another node may have just written does
   * not exist.
   */
  public CompletableFuture<View<MetadataState>> catchUp(Duration timeout) {
    return log.catchUp(timeout);
  }

  /** Told about every applied view, on the tailer thread; must return quickly. */
  public void addListener(ViewListener<MetadataState> listener) {
    log.addListener(listener);
  }

  public void removeListener(ViewListener<MetadataState> listener) {
    log.removeListener(listener);
  }

  /** Whether this node holds the maintenance lease now. */
  public boolean holdsLease() {
    return lease.state() instanceof LeaseState.Leader;
  }

  /** Whether the log still accepts writes (it stops for good on an undecodable row). */
  public boolean healthy() {
    return log.stopped().isEmpty();
  }

  /**
   * Why metadata writes cannot succeed now, or empty while they can: the log stopped at a row it
   * cannot apply (until an operator repairs it), or the database's latest answer was a failure
   * (until it answers again; the log keeps retrying). What readiness and failure answers look at.
   */
  public Optional<String> trouble() {
    Optional<String> stopped = log.stopped().map(Throwable::getMessage);
    return stopped.isPresent()
        ? stopped
        : log.databaseFailure().map(why -> "the metadata database fails: " + why);
  }

  /** Releases the lease, stops the log and disconnects. Idempotent. */
  @Override
  public void close() {
    lease.close();
    log.close();
    backend.close();
  }

  static String rootMessage(Throwable e) {
    Throwable cause = Causes.unwrap(e);
    if (cause instanceof TimeoutException) {
      return "timed out";
    }
    return cause.getMessage() != null ? cause.getMessage() : cause.toString();
  }
}
