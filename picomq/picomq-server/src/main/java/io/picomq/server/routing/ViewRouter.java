package io.picomq.server.routing;

import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registry;
import io.picomq.sql.log.View;
import io.picomq.stream.Route;
import io.picomq.stream.StreamRouter;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * The decision table of the brief's section 5, against this node's view:
 *
 * <ul>
 *   <li>an unregistered name (a create) is served here;
 *   <li>a stream with a pending transfer goes to the transfer's target (unless the target stopped:
 *       then the transfer falls back, see {@link io.picomq.server.metadata.Transfers});
 *   <li>a stream open on another live node process goes to that node's advertised address;
 *   <li>a stream open on a node process that stopped (taken over, presumed dead by its liveness
 *       row, or replaced by a newer process of its node that has not recovered it yet) is under
 *       recovery: {@link Route.Recovering}, never a redirect to a dead node;
 *   <li>a closed stream goes to the node it is placed on (by placement, a transfer, or as its last
 *       owner), which opens it; if that node stopped, or it is placed nowhere, it is served here
 *       (any node may reopen it);
 *   <li>with {@code redirect} off ({@code --routing local}) everything is served here.
 * </ul>
 *
 * A stale view costs a hop, never a second writer: opening a stream fences the previous epoch. A
 * redirect names the position of the view that decided it, and the next node decides on a view at
 * least that new: otherwise, while a transfer begins or completes, a target that has not applied it
 * yet sends the client back to the source, which sends it to the target again, until the client's
 * redirect limit ends the request (seen in {@code scripts/bench-transfer.sh}).
 */
public final class ViewRouter implements StreamRouter {
  /**
   * How long a request waits for this node to apply the position a redirect named: the rows are in
   * the log already, so this is a notification's delay; a view that cannot catch up decides as is.
   */
  private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(1);

  private final MetadataPlane plane;
  private final int selfNodeId;
  private final boolean redirect;
  private final NodeLivenessCheck liveness;

  public ViewRouter(
      MetadataPlane plane, int selfNodeId, boolean redirect, NodeLivenessCheck liveness) {
    this.plane = plane;
    this.selfNodeId = selfNodeId;
    this.redirect = redirect;
    this.liveness = liveness;
  }

  @Override
  public Route route(String streamName, long seen) {
    if (!redirect) {
      return Route.LOCAL;
    }
    View<MetadataState> view = atLeast(seen);
    MetadataState state = view.state();
    OptionalLong streamId = Registry.registeredStreamId(state, streamName);
    if (streamId.isEmpty()) {
      return Route.LOCAL;
    }
    Optional<PendingTransfer> transfer = state.pendingTransfer(streamId.getAsLong());
    if (transfer.isPresent() && canServe(state, transfer.get().toNodeId())) {
      return toNode(view, transfer.get().toNodeId());
    }
    Optional<StreamEntry> stream = state.stream(streamId.getAsLong());
    if (stream.isEmpty()) {
      return Route.LOCAL;
    }
    if (!stream.get().isOpen()) {
      // Placed (by placement, a transfer, or its last owner) on a node that can serve it: there;
      // otherwise any node may open it, and here is as good as anywhere.
      int placed = stream.get().nodeId();
      return stream.get().isPlaced() && canServe(state, placed)
          ? toNode(view, placed)
          : Route.LOCAL;
    }
    NodeRecord owner = state.nodes().get(stream.get().nodeId());
    if (owner == null) {
      return Route.LOCAL; // cannot happen: only registered processes open streams
    }
    boolean sameProcess = owner.nodeEpoch() == stream.get().openedNodeEpoch();
    if (sameProcess && owner.nodeId() == selfNodeId) {
      return Route.LOCAL; // this process: whether it may still acknowledge is the service's call
    }
    if (!sameProcess
        || owner.isTakenOver()
        || liveness.presumedDead(owner.nodeId(), owner.nodeEpoch())) {
      return new Route.Recovering(owner.nodeId());
    }
    return toNode(view, owner.nodeId());
  }

  /** This node's view once it applied position {@code seen}, or the view at hand after a wait. */
  private View<MetadataState> atLeast(long seen) {
    View<MetadataState> view = plane.view();
    if (seen <= view.appliedIndex()) {
      return view;
    }
    try {
      return plane.awaitApplied(seen, CATCH_UP_TIMEOUT).join();
    } catch (CompletionException | CancellationException e) {
      return plane.view();
    }
  }

  /** Whether {@code nodeId} is a registered node process, not taken over, not presumed dead. */
  private boolean canServe(MetadataState state, int nodeId) {
    NodeRecord node = state.nodes().get(nodeId);
    return node != null
        && !node.isTakenOver()
        && (nodeId == selfNodeId || !liveness.presumedDead(nodeId, node.nodeEpoch()));
  }

  private Route toNode(View<MetadataState> view, int nodeId) {
    if (nodeId == selfNodeId) {
      return Route.LOCAL;
    }
    NodeRecord node = view.state().nodes().get(nodeId);
    return node == null
        ? Route.LOCAL
        : new Route.Redirect(nodeId, node.advertisedAddress(), view.appliedIndex());
  }
}
