package io.picomq.server.routing;

import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registry;
import io.picomq.stream.Route;
import io.picomq.stream.StreamRouter;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The decision table of the brief's section 5, against this node's view:
 *
 * <ul>
 *   <li>an unregistered name (a create) is served here;
 *   <li>a stream with a pending transfer goes to the transfer's target;
 *   <li>a stream open on another live node process goes to that node's advertised address;
 *   <li>a closed stream is served here (any node may reopen it);
 *   <li>with {@code redirect} off ({@code --routing local}) everything is served here.
 * </ul>
 *
 * A stale view costs a hop, never a second writer: opening a stream fences the previous epoch.
 */
public final class ViewRouter implements StreamRouter {
  private final MetadataPlane plane;
  private final int selfNodeId;
  private final boolean redirect;

  public ViewRouter(MetadataPlane plane, int selfNodeId, boolean redirect) {
    this.plane = plane;
    this.selfNodeId = selfNodeId;
    this.redirect = redirect;
  }

  @Override
  public Route route(String streamName) {
    if (!redirect) {
      return Route.LOCAL;
    }
    MetadataState state = plane.state();
    OptionalLong streamId = Registry.registeredStreamId(state, streamName);
    if (streamId.isEmpty()) {
      return Route.LOCAL;
    }
    Optional<PendingTransfer> transfer = state.pendingTransfer(streamId.getAsLong());
    if (transfer.isPresent()) {
      return toNode(state, transfer.get().toNodeId());
    }
    Optional<StreamEntry> stream = state.stream(streamId.getAsLong());
    if (stream.isEmpty() || !stream.get().isOpen() || stream.get().nodeId() == selfNodeId) {
      return Route.LOCAL;
    }
    NodeRecord owner = state.nodes().get(stream.get().nodeId());
    boolean ownerLive = owner != null && owner.nodeEpoch() == stream.get().openedNodeEpoch();
    return ownerLive ? toNode(state, owner.nodeId()) : Route.LOCAL;
  }

  private Route toNode(MetadataState state, int nodeId) {
    if (nodeId == selfNodeId) {
      return Route.LOCAL;
    }
    NodeRecord node = state.nodes().get(nodeId);
    return node == null ? Route.LOCAL : new Route.Redirect(nodeId, node.advertisedAddress());
  }
}
