package io.picomq.server.service;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.server.metadata.MetadataPlane;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Engine stream ids allocated ahead, {@link #BLOCK} per log command, so a create spends one log
 * round trip fewer: allocating an id was one of its three sequential proposals (allocate, open,
 * register).
 *
 * <p>Cost: ids left in the reserve when the node stops are allocated streams that nothing opens or
 * registers, like those of a create that died between allocating and registering; each is a few
 * bytes of metadata state, at most {@code BLOCK - 1} per node start.
 *
 * <p>Threading: any thread; concurrent callers that find the reserve empty wait for one refill.
 */
final class StreamIdReserve {
  /** Ids allocated per log command. */
  static final int BLOCK = 32;

  private final MetadataPlane plane;
  private final ServiceFailures failures;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock: ids [next, end) are allocated and unused.
  private long next;
  private long end;

  StreamIdReserve(MetadataPlane plane, ServiceFailures failures) {
    this.plane = plane;
    this.failures = failures;
  }

  /** An allocated stream id nobody else got; blocks (bounded) when the reserve needs a refill. */
  long take() {
    lock.lock();
    try {
      if (next == end) {
        Outcome.StreamsCreated created =
            (Outcome.StreamsCreated)
                failures.await(plane.proposeAccepted(new Command.CreateStreams(BLOCK)));
        next = created.firstStreamId();
        end = next + created.count();
      }
      return next++;
    } finally {
      lock.unlock();
    }
  }
}
