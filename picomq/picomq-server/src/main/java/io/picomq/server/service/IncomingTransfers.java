package io.picomq.server.service;

import io.picomq.meta.state.MetadataState;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.sql.log.View;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * A request for a stream that is moving to this node waits here, before the stream is opened, until
 * the source has let go (the brief's "opens on the target park up to 10 s during the handoff"):
 * opening earlier would be refused, and answering 503 at once would make every client of the stream
 * retry after a second for what takes milliseconds.
 *
 * <p>Threading: blocks on the metadata log's applied index; call it on a virtual thread.
 */
final class IncomingTransfers {
  static final Duration PARK = Duration.ofSeconds(10);

  private final MetadataPlane plane;

  IncomingTransfers(MetadataPlane plane) {
    this.plane = plane;
  }

  /**
   * Returns once engine stream {@code streamId} is not moving to this node (at once when it is
   * not); throws {@code 503 not_owner} when it still is after {@link #PARK}.
   */
  void awaitArrival(String name, long streamId) {
    long deadline = System.nanoTime() + PARK.toNanos();
    View<MetadataState> view = plane.view();
    while (movingHere(view.state(), streamId)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw Handoffs.moving(name);
      }
      try {
        view = plane.awaitApplied(view.appliedIndex() + 1, Duration.ofNanos(left)).join();
      } catch (CompletionException timedOutOrClosed) {
        view = plane.view();
      }
    }
  }

  private boolean movingHere(MetadataState state, long streamId) {
    int self = plane.identity().nodeId();
    return state.pendingTransfer(streamId).filter(t -> t.toNodeId() == self).isPresent();
  }
}
