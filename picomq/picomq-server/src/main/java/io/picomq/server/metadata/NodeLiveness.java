package io.picomq.server.metadata;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.liveness.LivenessTable;
import io.picomq.sql.liveness.LivenessView;
import io.picomq.sql.liveness.NodeState;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node process's liveness row alive and publishes what every node's row says.
 *
 * <h2>Renewal</h2>
 *
 * One virtual thread renews the row every quarter of the TTL (the database writes its own clock:
 * renewed at now, expires at now + TTL), then reads every row with the database's clock and
 * publishes the {@link LivenessView}. {@link #view()} ages the published view by the local
 * monotonic time since it was read, so a node whose renewals stop turns suspect and dead on time
 * even in a view that is no longer refreshed.
 *
 * <h2>Self-fencing</h2>
 *
 * {@link #mayAcknowledge()} holds only until {@code sentAt + ttl - safetyMargin}, where {@code
 * sentAt} is this process's monotonic clock read <em>before</em> sending the last renewal the
 * database confirmed. The database executed that renewal no earlier, so the row it wrote expires no
 * earlier than {@code sentAt + ttl}: a node that cannot renew (database down, network cut, process
 * stalled) stops acknowledging at least {@code safetyMargin} before any other node can see its row
 * lapse. The margin absorbs the difference in rate between the local clock and the database's (one
 * tenth of the TTL, at least 100 ms). A renewal refused because a newer process of this node id
 * owns the row stops acknowledgements for good.
 *
 * <p>Lifecycle: {@link #start()} renews once synchronously (a node owns a live row before it
 * registers in the metadata log), {@link #close()} stops the thread and deletes the row, so a node
 * that stops cleanly is dead at once. Threading: every method may be called from any thread; {@link
 * #start()} and {@link #close()} block on SQL.
 */
public final class NodeLiveness implements AutoCloseable {
  /** The TTL unless configured ({@code --node-ttl}). */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);

  /**
   * The shortest TTL accepted. Renewing every quarter of it leaves 125 ms per round trip and the
   * self-fencing margin is at least 100 ms: below that, a slow statement would fence a healthy
   * node.
   */
  public static final Duration MIN_TTL = Duration.ofMillis(500);

  private static final Logger LOG = LoggerFactory.getLogger(NodeLiveness.class);
  private static final Duration MIN_SAFETY_MARGIN = Duration.ofMillis(100);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);

  private final LivenessTable table;
  private final NodeIdentity identity;
  private final Duration ttl;
  private final long renewIntervalNanos;
  private final long acknowledgeForNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition closed = lock.newCondition();

  /** The monotonic time until which this node may acknowledge; in the past until a renewal. */
  private volatile long acknowledgeUntilNanos;

  /** Set when a newer process of this node id owns the row: never acknowledge again. */
  private volatile boolean superseded;

  private volatile boolean closing;
  private volatile Published published;

  /** Written by start and close only (one thread, under {@code lock}). */
  private Thread renewer;

  /** Renewer thread: whether the last round failed, to log a failure streak once. */
  private boolean failing;

  /** A view as read, with the monotonic time when the read returned. */
  private record Published(LivenessView view, long readAtNanos) {}

  /**
   * @param backend the metadata database; borrowed, not closed
   * @param identity this node process: its row is keyed by node id and fenced by epoch
   * @param ttl how long a renewal keeps the row alive, at least {@link #MIN_TTL}
   */
  public NodeLiveness(SqlBackend backend, NodeIdentity identity, Duration ttl) {
    this.identity = Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.compareTo(MIN_TTL) < 0) {
      throw new IllegalArgumentException("node TTL must be at least " + MIN_TTL + ", not " + ttl);
    }
    this.table = new LivenessTable(backend);
    this.ttl = ttl;
    this.renewIntervalNanos = ttl.toNanos() / 4;
    this.acknowledgeForNanos = ttl.toNanos() - safetyMargin(ttl).toNanos();
    long now = System.nanoTime();
    this.acknowledgeUntilNanos = now;
    this.published = new Published(LivenessView.empty(0), now);
  }

  /** How long before its row can lapse a node that cannot renew stops acknowledging. */
  public static Duration safetyMargin(Duration ttl) {
    Duration tenth = ttl.dividedBy(10);
    return tenth.compareTo(MIN_SAFETY_MARGIN) < 0 ? MIN_SAFETY_MARGIN : tenth;
  }

  /**
   * Renews this process's row (creating it), reads the first view and starts renewing every quarter
   * of the TTL. Blocks for the two statements.
   *
   * @throws MetadataUnavailableException if the database does not answer, or a newer process of
   *     this node id owns the row
   */
  public void start() {
    lock.lock();
    try {
      if (renewer != null || closing) {
        throw new IllegalStateException("liveness of node " + identity.nodeId() + " was started");
      }
      long sentAt = System.nanoTime();
      boolean renewed;
      try {
        renewed = table.renew(identity.nodeId(), identity.nodeEpoch(), ttl);
      } catch (SQLException e) {
        throw new MetadataUnavailableException(
            "cannot renew the liveness row of node " + identity.nodeId() + ": " + e.getMessage(),
            e);
      }
      if (!renewed) {
        superseded = true;
        throw new MetadataUnavailableException(supersededMessage(), null);
      }
      acknowledgeUntilNanos = sentAt + acknowledgeForNanos;
      refreshView();
      renewer =
          Thread.ofVirtual()
              .name("picomq-liveness-" + identity.nodeId())
              .start(() -> renewLoop(sentAt + renewIntervalNanos));
    } finally {
      lock.unlock();
    }
  }

  /** The TTL this node renews with. */
  public Duration ttl() {
    return ttl;
  }

  /**
   * Every node's row, judged at the database's time now: the last view read, aged by the local
   * monotonic time since it was read (measured from when the read returned, so the estimate never
   * runs ahead of the database's clock). Never blocks.
   */
  public LivenessView view() {
    Published last = published;
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last.readAtNanos());
    return last.view().later(Math.max(0, elapsedMillis));
  }

  /** The state of process {@code nodeEpoch} of node {@code nodeId} now (see {@link #view()}). */
  public NodeState state(int nodeId, long nodeEpoch) {
    return view().state(nodeId, nodeEpoch);
  }

  /**
   * Whether this node may acknowledge writes now: it started, was not superseded or closed, and the
   * last confirmed renewal was sent less than {@code ttl - safetyMargin} ago. Never blocks.
   */
  public boolean mayAcknowledge() {
    return !closing && !superseded && System.nanoTime() - acknowledgeUntilNanos < 0;
  }

  /** Stops renewing and deletes this process's row (if it still owns it). Idempotent. */
  @Override
  public void close() {
    Thread stopping;
    lock.lock();
    try {
      if (closing) {
        return;
      }
      closing = true;
      closed.signalAll();
      stopping = renewer;
    } finally {
      lock.unlock();
    }
    if (stopping == null) {
      return;
    }
    try {
      if (!stopping.join(JOIN_TIMEOUT)) {
        // A renewal hangs; if it completes after the delete, the row lapses after one TTL.
        LOG.warn(
            "liveness renewer of node {} did not stop within {}", identity.nodeId(), JOIN_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (superseded) {
      return;
    }
    try {
      table.remove(identity.nodeId(), identity.nodeEpoch());
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "cannot delete the liveness row of node {}; it lapses in {}: {}",
          identity.nodeId(),
          ttl,
          e.toString());
    }
  }

  private void renewLoop(long firstRenewalAt) {
    long nextRenewalAt = firstRenewalAt;
    while (pauseUntil(nextRenewalAt)) {
      long sentAt = System.nanoTime();
      if (!superseded) {
        renew(sentAt);
      }
      // From the send: a slow renewal makes the next one due sooner, not later.
      nextRenewalAt = sentAt + renewIntervalNanos;
      refreshView();
    }
  }

  private void renew(long sentAt) {
    try {
      if (table.renew(identity.nodeId(), identity.nodeEpoch(), ttl)) {
        acknowledgeUntilNanos = sentAt + acknowledgeForNanos;
        if (failing) {
          LOG.info("node {} renews its liveness row again", identity.nodeId());
          failing = false;
        }
      } else {
        superseded = true;
        LOG.error("{}; this process stops acknowledging writes", supersededMessage());
      }
    } catch (SQLException | RuntimeException e) {
      if (!failing) {
        LOG.warn(
            "node {} cannot renew its liveness row (it stops acknowledging {} after the last"
                + " renewal): {}",
            identity.nodeId(),
            Duration.ofNanos(acknowledgeForNanos),
            e.toString());
        failing = true;
      }
    }
  }

  private void refreshView() {
    try {
      LivenessView view = table.readAll();
      published = new Published(view, System.nanoTime());
    } catch (SQLException | RuntimeException e) {
      // The renewal's failure is logged; the published view ages on its own meanwhile.
      LOG.debug("cannot read the liveness rows: {}", e.toString());
    }
  }

  /** Waits until {@code deadlineNanos}; false once closing. */
  private boolean pauseUntil(long deadlineNanos) {
    lock.lock();
    try {
      long remaining;
      while (!closing && (remaining = deadlineNanos - System.nanoTime()) > 0) {
        closed.awaitNanos(remaining);
      }
      return !closing;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  private String supersededMessage() {
    return "node "
        + identity.nodeId()
        + " epoch "
        + identity.nodeEpoch()
        + " is superseded: a newer process of the node renews its liveness row";
  }
}
