package io.picomq.sql.lease;

import io.picomq.sql.backend.SqlBackend;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects, among the nodes sharing a database, the one that runs maintenance.
 *
 * <h2>Protocol</h2>
 *
 * Every {@link LeaseOptions#renewInterval()} a follower reads the lease row and, if it is free,
 * expired by the follower's clock, takes it over with a compare-and-set of the whole row that
 * increments the epoch. The holder renews with an update conditional on (holder, epoch), writing
 * {@code expiry = sendTime + ttl} where {@code sendTime} is its clock reading <em>before</em>
 * sending. It claims the lease only until {@code sendTime + ttl - safetyMargin}: if no renewal is
 * confirmed by then it demotes itself, even while the database call is still hanging. On {@link
 * #close()} it releases the row.
 *
 * <h2>Clock assumption</h2>
 *
 * The expiry is written by the holder's clock and compared against the follower's. If the
 * follower's clock runs ahead of the holder's by {@code d}, the follower sees the lease expire
 * {@code d} early; the holder has stopped by then as long as {@code d < safetyMargin} (2.5 s by
 * default). Node clocks are assumed NTP-synchronized well within that. Even when the assumption
 * fails, two holders at once only duplicate maintenance work; every such command carries the epoch
 * and the metadata state machine decides which tenure is current.
 *
 * <h2>Threads</h2>
 *
 * A control thread owns the state: it starts a round (one SQL exchange) on a worker thread when one
 * is due, applies the round's result, and checks the deadline every {@link
 * LeaseOptions#checkInterval()}. Decisions use the injected {@link Clock}; only the pauses between
 * checks are real time. Fields marked "control thread" are written only there.
 */
public final class MaintenanceLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceLease.class);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);

  private final LeaseTable table;
  private final String node;
  private final Clock clock;
  private final LeaseOptions options;
  private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
  private final BlockingQueue<RoundResult> results = new LinkedBlockingQueue<>();
  private final ReentrantLock lifecycle = new ReentrantLock();

  /** Written by the control thread (and by close once it has stopped); read by any thread. */
  private volatile LeaseState state = new LeaseState.Follower();

  /** Set by close; the control thread exits when it sees it. */
  private volatile boolean closing;

  /** Guarded by {@code lifecycle}. */
  private Thread control;

  /** Guarded by {@code lifecycle}. */
  private ExecutorService worker;

  /** Control thread: until when the current tenure is confirmed. */
  private Instant confirmedUntil = Instant.MIN;

  /** Control thread: when the next round is due. */
  private Instant nextRoundAt = Instant.MIN;

  /** Control thread: whether a round is running on the worker. */
  private boolean roundInFlight;

  /** Control thread: the epoch of the last takeover this node made, 0 if none. */
  private long lastAcquiredEpoch;

  /** Control thread: whether the last round failed (to log a failure streak once). */
  private boolean failing;

  /**
   * @param backend the database holding the lease row; borrowed, not closed
   * @param node this node's id, as recorded in the row
   * @param clock the clock every decision reads
   */
  public MaintenanceLease(SqlBackend backend, String node, Clock clock, LeaseOptions options) {
    if (node.isEmpty()) {
      throw new IllegalArgumentException("node id is empty");
    }
    this.table = new LeaseTable(backend);
    this.node = node;
    this.clock = clock;
    this.options = options;
  }

  /** Starts campaigning for the lease. */
  public void start() {
    lifecycle.lock();
    try {
      if (control != null || closing) {
        throw new IllegalStateException("lease of " + node + " was already started");
      }
      worker = Executors.newSingleThreadExecutor(options.threadFactory());
      control = options.threadFactory().newThread(this::controlLoop);
      control.setName("picomq-lease-" + node);
      control.start();
    } finally {
      lifecycle.unlock();
    }
  }

  /** The state now. */
  public LeaseState state() {
    return state;
  }

  /** Calls {@code listener} on every change from now on (see {@link LeaseListener}). */
  public void addListener(LeaseListener listener) {
    listeners.add(listener);
  }

  public void removeListener(LeaseListener listener) {
    listeners.remove(listener);
  }

  /** Stops campaigning and, if this node holds the lease, releases it. Idempotent. */
  @Override
  public void close() {
    Thread stopping;
    ExecutorService rounds;
    lifecycle.lock();
    try {
      if (closing) {
        return;
      }
      closing = true;
      stopping = control;
      rounds = worker;
    } finally {
      lifecycle.unlock();
    }
    if (stopping == null) {
      return;
    }
    try {
      if (!stopping.join(JOIN_TIMEOUT)) {
        LOG.warn("lease control thread of {} did not stop within {}", node, JOIN_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    rounds.shutdown();
    // Release the last tenure the row may still record for us, even if we demoted ourselves: the
    // update is conditional on (node, epoch), so it cannot touch a newer holder's row.
    long heldEpoch = lastAcquiredEpoch;
    if (roundInFlight) {
      // The control thread has stopped (join: its fields are visible). A takeover it did not see
      // through would leave the row naming us until it expires: hear it out and release it too.
      try {
        RoundResult last = results.poll(JOIN_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        if (last instanceof RoundResult.Acquired acquired) {
          heldEpoch = acquired.epoch();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (heldEpoch > 0) {
      release(heldEpoch);
    }
    change(new LeaseState.Follower());
  }

  /** Releases tenure {@code epoch}, waiting at most {@code JOIN_TIMEOUT} for a hung database. */
  private void release(long epoch) {
    CompletableFuture<Optional<LeaseRow>> released = new CompletableFuture<>();
    options
        .threadFactory()
        .newThread(
            () -> {
              try {
                released.complete(table.release(node, epoch));
              } catch (SQLException | RuntimeException e) {
                released.completeExceptionally(e);
              }
            })
        .start();
    try {
      if (released.get(JOIN_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS).isPresent()) {
        LOG.info("{} released the maintenance lease (epoch {})", node, epoch);
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("{} could not release the maintenance lease; it expires by itself", node, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void controlLoop() {
    try {
      while (!closing) {
        Instant now = clock.instant();
        if (state instanceof LeaseState.Leader leader && !now.isBefore(confirmedUntil)) {
          LOG.warn(
              "{} demotes itself: no renewal of epoch {} confirmed by {}",
              node,
              leader.epoch(),
              confirmedUntil);
          change(new LeaseState.Follower());
        }
        if (!roundInFlight && !now.isBefore(nextRoundAt)) {
          roundInFlight = true;
          LeaseState during = state;
          worker.execute(() -> results.add(round(during)));
        }
        RoundResult result = results.poll(options.checkInterval().toNanos(), TimeUnit.NANOSECONDS);
        if (result != null) {
          roundInFlight = false;
          nextRoundAt = result.sentAt().plus(options.renewInterval());
          handle(result);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One SQL exchange, on the worker thread. Reads {@code clock}, never the control fields. */
  private RoundResult round(LeaseState during) {
    Instant sentAt = clock.instant();
    long expiresAt = sentAt.plus(options.ttl()).toEpochMilli();
    try {
      if (during instanceof LeaseState.Leader leader) {
        Optional<LeaseRow> renewed = table.renew(node, leader.epoch(), expiresAt);
        return renewed.isPresent()
            ? new RoundResult.Renewed(sentAt, leader.epoch())
            : new RoundResult.Fenced(sentAt, leader.epoch());
      }
      LeaseRow row = table.read();
      if (!row.takeable(sentAt.toEpochMilli())) {
        return new RoundResult.HeldElsewhere(sentAt);
      }
      return table
          .takeOver(row, node, expiresAt)
          .<RoundResult>map(taken -> new RoundResult.Acquired(sentAt, taken.epoch()))
          .orElseGet(() -> new RoundResult.HeldElsewhere(sentAt));
    } catch (SQLException | RuntimeException e) {
      return new RoundResult.Failed(sentAt, e);
    }
  }

  private void handle(RoundResult result) {
    LOG.debug("{} round result {} at {} in state {}", node, result, clock.instant(), state);
    if (!(result instanceof RoundResult.Failed) && failing) {
      LOG.info("{} reaches the lease row again", node);
      failing = false;
    }
    Instant deadline = result.sentAt().plus(options.ttl()).minus(options.safetyMargin());
    boolean inTime = clock.instant().isBefore(deadline);
    switch (result) {
      case RoundResult.Renewed renewed -> {
        if (state instanceof LeaseState.Leader leader
            && leader.epoch() == renewed.epoch()
            && inTime) {
          confirmedUntil = deadline;
        }
      }
      case RoundResult.Fenced fenced -> {
        if (state instanceof LeaseState.Leader leader && leader.epoch() == fenced.epoch()) {
          LOG.warn("{} lost the maintenance lease: epoch {} was taken over", node, fenced.epoch());
          change(new LeaseState.Follower());
        }
      }
      case RoundResult.Acquired acquired -> {
        lastAcquiredEpoch = acquired.epoch();
        if (inTime) {
          confirmedUntil = deadline;
          LOG.info("{} holds the maintenance lease, epoch {}", node, acquired.epoch());
          change(new LeaseState.Leader(acquired.epoch()));
        }
        // Confirmed too late to use: stay a follower. The tenure expires unused and the next
        // takeover, ours or another node's, starts a new epoch.
      }
      case RoundResult.HeldElsewhere held -> {}
      case RoundResult.Failed failed -> {
        if (!failing) {
          LOG.warn("{} could not reach the lease row; retrying", node, failed.cause());
          failing = true;
        }
      }
    }
  }

  private void change(LeaseState next) {
    if (next.equals(state)) {
      return;
    }
    state = next;
    for (LeaseListener listener : listeners) {
      try {
        listener.onChange(next);
      } catch (RuntimeException e) {
        LOG.error("lease listener {} failed on {}", listener, next, e);
      }
    }
  }

  /** What one round learned; {@code sentAt} is the clock reading before the SQL was sent. */
  private sealed interface RoundResult {
    Instant sentAt();

    record Renewed(Instant sentAt, long epoch) implements RoundResult {}

    record Fenced(Instant sentAt, long epoch) implements RoundResult {}

    record Acquired(Instant sentAt, long epoch) implements RoundResult {}

    record HeldElsewhere(Instant sentAt) implements RoundResult {}

    record Failed(Instant sentAt, Exception cause) implements RoundResult {}
  }
}
