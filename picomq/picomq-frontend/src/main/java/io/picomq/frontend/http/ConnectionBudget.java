package io.picomq.frontend.http;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One listener's open connections against its cap, and why connections were closed on the server's
 * initiative. Read by metrics; any thread may call.
 *
 * <p>A connection is admitted when it is accepted (on the acceptor thread, by the {@link
 * GatedServerChannel}) and released when it closes, so the open count is the descriptors the
 * listener's admitted connections hold; a refused one is answered and closed as it is accepted.
 */
public final class ConnectionBudget {

  /** Why the server closed a connection. */
  public enum CloseReason {
    /** Accepted beyond the cap and closed at once. */
    REFUSED,
    /** A request's headers (or a new connection's first request) took longer than allowed. */
    HEADER_TIMEOUT,
    /** No request in flight and no new one (or a stalled request body) for the idle timeout. */
    IDLE_TIMEOUT
  }

  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<CloseReason, LongAdder> closed = new EnumMap<>(CloseReason.class);

  ConnectionBudget(int max) {
    this.max = max;
    for (CloseReason reason : CloseReason.values()) {
      closed.put(reason, new LongAdder());
    }
  }

  /** Connections open now (admitted and not yet closed). */
  public int open() {
    return open.get();
  }

  /** The cap: connections beyond it are refused. */
  public int max() {
    return max;
  }

  /** Connections the server closed for {@code reason} since the listener started. */
  public long closed(CloseReason reason) {
    return closed.get(reason).sum();
  }

  /** Takes a place for a new connection; false at the cap (counted as refused). */
  boolean tryAdmit() {
    while (true) {
      int now = open.get();
      if (now >= max) {
        closed.get(CloseReason.REFUSED).increment();
        return false;
      }
      if (open.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  /** Gives back the place of an admitted connection that has closed. */
  void release() {
    open.decrementAndGet();
  }

  void closedFor(CloseReason reason) {
    closed.get(reason).increment();
  }
}
