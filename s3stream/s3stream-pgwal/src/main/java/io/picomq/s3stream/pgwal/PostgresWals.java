package io.picomq.s3stream.pgwal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ClusterWals;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Postgres WALs of every node of one cluster, on one connection pool: a node opens its own WAL
 * here, and a takeover opens a failed node's ({@link ClusterWals}).
 *
 * <p>The pool (HikariCP over pgjdbc) holds up to {@code maxInflight + 2} connections: one per
 * insert in flight, one for trims, one for the rest (start, recovery, reset). Every connection has
 * {@code application_name = picomq-wal} and {@code synchronous_commit = on}. JDBC runs on virtual
 * threads, one per statement in flight, never on the engine's executor.
 *
 * <p>A database outage does not fail the WALs: they retry (backoff up to 1 s) until it is over,
 * appends wait meanwhile, and {@link #problem()} says what is wrong.
 */
public final class PostgresWals implements ClusterWals, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresWals.class);

  private final PostgresWalUri uri;
  private final String clusterId;
  private final Scheduler scheduler;
  private final Executor executor;
  private final ServerProbe probe;
  private final HikariDataSource pool;
  private final ExecutorService blocking;
  private final DatabaseProblems problems = new DatabaseProblems();
  private final DatabaseCalls calls;
  private final Set<PostgresWal> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private PostgresWals(
      PostgresWalUri uri,
      String clusterId,
      Scheduler scheduler,
      Executor executor,
      ServerProbe probe,
      HikariDataSource pool,
      ExecutorService blocking) {
    this.uri = uri;
    this.clusterId = clusterId;
    this.scheduler = scheduler;
    this.executor = executor;
    this.probe = probe;
    this.pool = pool;
    this.blocking = blocking;
    this.calls = new DatabaseCalls(pool, blocking, scheduler, problems);
  }

  /**
   * Opens the pool. Connects lazily: a database that is down now makes the WALs' start wait, not
   * this fail.
   *
   * @param uri the database and the WAL settings
   * @param clusterId the cluster, part of every slot table's name and of the node rows' key
   * @param scheduler clock, batch timers and retry backoffs
   * @param executor runs the WALs' owner tasks (any executor: each WAL serializes its own)
   */
  public static PostgresWals open(
      PostgresWalUri uri, String clusterId, Scheduler scheduler, Executor executor) {
    return open(uri, clusterId, scheduler, executor, ServerProbe.postgres());
  }

  /**
   * As {@link #open(PostgresWalUri, String, Scheduler, Executor)}, with the server's settings read
   * by {@code probe}.
   */
  static PostgresWals open(
      PostgresWalUri uri,
      String clusterId,
      Scheduler scheduler,
      Executor executor,
      ServerProbe probe) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(probe, "probe");
    HikariDataSource pool = new HikariDataSource(poolConfig(uri));
    ExecutorService blocking =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("picomq-wal-db-", 0).factory());
    LOG.info("Postgres WAL of cluster {} at {}", clusterId, uri.redacted());
    return new PostgresWals(uri, clusterId, scheduler, executor, probe, pool, blocking);
  }

  private static HikariConfig poolConfig(PostgresWalUri uri) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(uri.jdbcUrl());
    uri.user().ifPresent(config::setUsername);
    uri.password().ifPresent(config::setPassword);
    config.setPoolName("picomq-wal");
    config.setMaximumPoolSize(uri.maxInflight() + 2);
    config.setMinimumIdle(1);
    // Short: a waiting WAL reports the outage (problem()) after this long, and retries.
    config.setConnectionTimeout(2_000);
    // Do not fail here when the database is down: start() retries until it is up.
    config.setInitializationFailTimeout(-1);
    config.setConnectionInitSql("SET synchronous_commit = on");
    config.addDataSourceProperty("connectTimeout", "2");
    // A dead server must surface as an error (then a retry), not as a thread blocked for good.
    config.addDataSourceProperty("socketTimeout", "30");
    config.addDataSourceProperty("tcpKeepAlive", "true");
    return config;
  }

  /** The node's WAL under {@code epoch}, not started; batching as the URI says. */
  @Override
  public WriteAheadLog open(int nodeId, long epoch) {
    return open(nodeId, epoch, uri.walConfig());
  }

  /** The node's WAL under {@code epoch}, not started, with other batching (tests). */
  WriteAheadLog open(int nodeId, long epoch, WalConfig batching) {
    if (closed) {
      throw new IllegalStateException("the Postgres WALs of cluster " + clusterId + " are closed");
    }
    WalDatabase database =
        new WalDatabase(clusterId, nodeId, epoch, uri.geometry(), uri.allowUnsafe(), probe);
    PostgresWal wal =
        new PostgresWal(
            nodeId,
            epoch,
            database,
            calls,
            batching,
            uri.geometry(),
            scheduler,
            executor,
            open::remove);
    open.add(wal);
    return wal;
  }

  /** One more than the epoch that claimed the node last; 0 for a node that never did. */
  @Override
  public CompletableFuture<Long> epochAbove(int nodeId) {
    return calls.call(
        "reading the WAL epoch of node " + nodeId,
        connection -> {
          WalSchema.ensureNodeTable(connection);
          OptionalLong epoch = NodeRows.currentEpoch(connection, clusterId, nodeId);
          return epoch.isPresent() ? Math.max(0, epoch.getAsLong() + 1) : 0L;
        },
        () ->
            closed
                ? Optional.of(new IllegalStateException("the Postgres WALs are closed"))
                : Optional.empty());
  }

  /**
   * The database failure a WAL is retrying right now, for readiness and 503 answers; empty while
   * the database works.
   */
  public Optional<String> problem() {
    return problems.current();
  }

  /**
   * Closes every WAL opened here that is still open (as {@link WriteAheadLog#close()}), then the
   * pool.
   */
  @Override
  public void close() {
    closed = true;
    List.copyOf(open).forEach(PostgresWal::close);
    blocking.shutdown();
    pool.close();
  }

  @Override
  public String toString() {
    return "PostgresWals[" + clusterId + " at " + uri.redacted() + "]";
  }
}
