package io.picomq.sql.log;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's handle on the replicated command log: propose commands, read the replicated state.
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li>The log is the table {@code PREFIXlog(idx, payload)}; row {@code n} holds a batch of
 *       encoded commands ({@link RowCodec}). Indexes are contiguous from the oldest kept row.
 *   <li>{@link #propose} queues the encoded command. The <b>flusher</b> thread packs queued
 *       commands into rows (group commit) and appends each row at the next index, retrying higher
 *       on conflict with other writers.
 *   <li>The <b>tailer</b> thread reads rows in index order, applies their commands with the {@link
 *       ReplicatedStateMachine}, and publishes a new immutable {@link View} per row. Every node,
 *       writer or not, runs one; each proposal completes with its command's result only after this
 *       node's tailer applied the row.
 *   <li>Readers call {@link #view()}: an atomic load, never SQL.
 *   <li>Every {@link LogOptions#snapshotEveryRows()} rows (more for a large state, see {@link
 *       LogOptions#snapshotBytesPerInterval()}) the encoded state is stored in chunks, the single
 *       snapshot row is switched to them and the log is truncated below it. A tailer that needs a
 *       truncated row reinstalls from the snapshot.
 *   <li>A row that cannot be decoded or applied stops the sink: waiting proposals and every later
 *       one fail with {@link LogStoppedException}, and the view stays at the last good row.
 * </ul>
 *
 * <h2>Lifecycle and threads</h2>
 *
 * The constructor starts nothing and touches no database. {@link #start()} starts the tailer and
 * the flusher (from {@link LogOptions#threadFactory()}); {@link #close()} stops them and fails
 * whatever is still waiting with {@link LogClosedException}. The backend is borrowed, not owned:
 * several logs may share one, and closing a log leaves it open.
 *
 * @param <S> the replicated state
 * @param <C> a command
 * @param <R> a command's result
 */
public final class SqlLog<S, C, R> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqlLog.class);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);

  private enum Phase {
    NEW,
    STARTED,
    CLOSED
  }

  private final ReplicatedStateMachine<S, C, R> machine;
  private final LogOptions options;
  private final BlockingQueue<Proposal<R>> queue;
  private final Proposal<R> wakeFlusher = new Proposal<>(new byte[0], new CompletableFuture<>());
  private final ViewPublisher<S> views;
  private final PendingBatches<R> pending;
  private final LogHealth health = new LogHealth();
  private final SnapshotWriter<S> snapshotWriter;
  private final Tailer<S, C, R> tailer;
  private final Flusher<R> flusher;
  private final Optional<LogListener> listener;
  private final LogTable table;
  private final CompletableFuture<View<S>> caughtUp = new CompletableFuture<>();
  private final ReentrantLock lifecycle = new ReentrantLock();

  /** Written under {@code lifecycle}; read by any thread. */
  private volatile Phase phase = Phase.NEW;

  /** Guarded by {@code lifecycle}. */
  private final List<Thread> threads = new ArrayList<>();

  /**
   * @param backend where the log lives; borrowed, not closed by this log
   * @param machine what the log's commands mean
   */
  public SqlLog(SqlBackend backend, ReplicatedStateMachine<S, C, R> machine, LogOptions options) {
    this.machine = machine;
    this.options = options;
    this.queue = new ArrayBlockingQueue<>(options.maxPendingProposals());
    this.views =
        new ViewPublisher<>(new View<>(0, machine.initial()), options.completionExecutor());
    this.pending = new PendingBatches<>(options.completionExecutor());

    // Random, so that rows a previous incarnation of this node wrote are never mistaken for ours.
    long writerId = UUID.randomUUID().getMostSignificantBits();
    SnapshotTable snapshots = new SnapshotTable(backend, writerId, options.snapshotChunkBytes());
    this.snapshotWriter = new SnapshotWriter<>(machine, snapshots, options);
    LogTable table = new LogTable(backend, writerId);
    this.table = table;
    this.tailer =
        new Tailer<>(
            machine,
            table,
            snapshots,
            views,
            pending,
            snapshotWriter,
            health,
            this::stopSink,
            caughtUp,
            writerId,
            options);
    this.flusher =
        new Flusher<>(
            table,
            queue,
            wakeFlusher,
            pending,
            health,
            () -> views.current().appliedIndex(),
            tailer::nudge,
            writerId,
            options);
    // A SQLite database is one node's; on Postgres the other nodes' rows arrive as notifications.
    this.listener =
        backend.dialect() == SqlDialect.POSTGRES
            ? Optional.of(
                new LogListener(
                    backend,
                    table.channel(),
                    Long.toString(writerId),
                    tailer::nudge,
                    () -> phase == Phase.STARTED,
                    options))
            : Optional.empty();
  }

  /**
   * Starts the tailer and the flusher.
   *
   * @return completes with the first view that includes every row stored when the tailer started
   *     (the stored snapshot, then the replayed tail), or fails if the sink stops first
   * @throws IllegalStateException if called twice or after {@link #close()}
   */
  public CompletableFuture<View<S>> start() {
    lifecycle.lock();
    try {
      if (phase != Phase.NEW) {
        throw new IllegalStateException("metadata log " + options.name() + " is " + phase);
      }
      phase = Phase.STARTED;
      threads.add(startThread(tailer, "picomq-log-tailer-"));
      threads.add(startThread(flusher, "picomq-log-flusher-"));
      listener.ifPresent(l -> threads.add(startThread(l, "picomq-log-listener-")));
    } finally {
      lifecycle.unlock();
    }
    return caughtUp.copy();
  }

  private Thread startThread(Runnable task, String prefix) {
    Thread thread = options.threadFactory().newThread(task);
    thread.setName(prefix + options.name());
    thread.start();
    return thread;
  }

  /**
   * Proposes a command. Never blocks.
   *
   * @return completes with the command's result once this node applied the row holding it; fails
   *     with a {@link MetadataLogException}: {@link LogStoppedException} at once when the sink has
   *     stopped, {@link LogOverloadedException} when too many proposals wait, {@link
   *     LogClosedException} when the log is not running. Cancelling the future before its row is
   *     written withdraws the proposal.
   */
  public CompletableFuture<R> propose(C command) {
    Optional<MetadataLogException> failure = health.failure();
    if (failure.isPresent()) {
      return CompletableFuture.failedFuture(failure.get());
    }
    if (phase != Phase.STARTED) {
      return CompletableFuture.failedFuture(
          new LogClosedException("metadata log " + options.name() + " is " + phase));
    }
    CompletableFuture<R> result = new CompletableFuture<>();
    if (!queue.offer(new Proposal<>(machine.encodeCommand(command), result))) {
      return CompletableFuture.failedFuture(
          new LogOverloadedException(options.maxPendingProposals()));
    }
    // A stop or close racing with the offer may have drained the queue before it: drain again.
    health.failure().ifPresent(this::failQueued);
    return result;
  }

  /** The latest view. Never blocks, never touches the database. */
  public View<S> view() {
    return views.current();
  }

  /**
   * Waits until this node has applied row {@code index}.
   *
   * @return completes with the first view at or past {@code index}; fails with a {@link
   *     java.util.concurrent.TimeoutException} after {@code timeout}, or with the {@link
   *     MetadataLogException} that stopped or closed the log
   */
  public CompletableFuture<View<S>> awaitApplied(long index, Duration timeout) {
    return views.await(index, timeout);
  }

  /**
   * Waits until this node has applied every row the log held when called: one read of the log's
   * last index, then {@link #awaitApplied}. For an answer that must not miss what another node has
   * just written (a name another node created a moment ago, say), at the cost of that read.
   *
   * @return fails like {@link #awaitApplied}, or with the database's error
   */
  public CompletableFuture<View<S>> catchUp(Duration timeout) {
    CompletableFuture<Long> last = new CompletableFuture<>();
    Thread.ofVirtual()
        .name("picomq-log-catch-up")
        .start(
            () -> {
              try {
                last.complete(table.lastIndex());
              } catch (SQLException | RuntimeException e) {
                last.completeExceptionally(e);
              }
            });
    return last.thenCompose(
        index -> {
          if (index > views.current().appliedIndex()) {
            tailer.nudge();
          }
          return awaitApplied(index, timeout);
        });
  }

  /** Calls {@code listener} for every view published from now on (see {@link ViewListener}). */
  public void addListener(ViewListener<S> listener) {
    views.addListener(listener);
  }

  public void removeListener(ViewListener<S> listener) {
    views.removeListener(listener);
  }

  /**
   * Why the database does not answer now: the latest read of the log (the tailer polls at least
   * every {@link LogOptions#pollInterval()}) or the latest row write failed, and none succeeded
   * since. Empty while it answers. The log retries on its own; this only reports.
   */
  public Optional<String> databaseFailure() {
    return health.databaseFailure();
  }

  /** Why the sink stopped, if it did. */
  public Optional<LogStoppedException> stopped() {
    return health
        .failure()
        .filter(LogStoppedException.class::isInstance)
        .map(LogStoppedException.class::cast);
  }

  /**
   * Stops the threads (waiting up to 10 s for each to finish its current database call) and fails
   * whatever still waits. Idempotent.
   */
  @Override
  public void close() {
    List<Thread> started;
    lifecycle.lock();
    try {
      if (phase == Phase.CLOSED) {
        return;
      }
      phase = Phase.CLOSED;
      started = List.copyOf(threads);
    } finally {
      lifecycle.unlock();
    }
    health.fail(new LogClosedException("metadata log " + options.name() + " is closed"));
    health.close();
    tailer.nudge();
    queue.offer(wakeFlusher);
    try {
      for (Thread thread : started) {
        if (!thread.join(JOIN_TIMEOUT)) {
          LOG.warn(
              "[{}] {} did not stop within {}", options.name(), thread.getName(), JOIN_TIMEOUT);
        }
      }
      snapshotWriter.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    health.failure().ifPresent(this::failWaiting);
  }

  private void stopSink(LogStoppedException stop) {
    if (health.fail(stop)) {
      LOG.error("[{}] {}", options.name(), stop.getMessage(), stop.getCause());
      failWaiting(stop);
    }
  }

  private void failWaiting(MetadataLogException failure) {
    failQueued(failure);
    pending.failAll(failure);
    views.fail(failure);
    caughtUp.completeExceptionally(failure);
  }

  private void failQueued(MetadataLogException failure) {
    boolean wakeSignalSeen = false;
    for (Proposal<R> proposal = queue.poll(); proposal != null; proposal = queue.poll()) {
      if (proposal == wakeFlusher) {
        wakeSignalSeen = true;
      } else {
        proposal.result().completeExceptionally(failure);
      }
    }
    if (wakeSignalSeen) {
      // close() queued it for a flusher blocked in take(); the flusher must still receive it.
      queue.offer(wakeFlusher);
    }
  }
}
