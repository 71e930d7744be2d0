package io.picomq.meta.apply;

import io.picomq.meta.command.Command.RegisterNode;
import io.picomq.meta.command.Command.SetNodeSlots;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import java.util.Optional;

/** Node registration, slots, the node-epoch check and placement. */
final class NodeTransitions {

  private NodeTransitions() {}

  static Applied register(MetadataState state, RegisterNode c) {
    NodeRecord known = state.nodes().get(c.nodeId());
    if (known != null) {
      if (c.nodeEpoch() < known.nodeEpoch()) {
        return Applied.rejected(
            state,
            RejectReason.STALE_NODE_EPOCH,
            "node "
                + c.nodeId()
                + " registered epoch "
                + known.nodeEpoch()
                + " > "
                + c.nodeEpoch());
      }
      if (c.nodeEpoch() == known.nodeEpoch()
          && c.advertisedAddress().equals(known.advertisedAddress())
          && c.slots() == known.slots()) {
        return Applied.redundant(state, new Outcome.NodeRegistered(c.nodeId(), c.nodeEpoch()));
      }
    }
    return Applied.ok(
        state.withNode(c.nodeId(), c.nodeEpoch(), c.advertisedAddress(), c.slots()),
        new Outcome.NodeRegistered(c.nodeId(), c.nodeEpoch()));
  }

  static Applied setSlots(MetadataState state, SetNodeSlots c) {
    NodeRecord node = state.nodes().get(c.nodeId());
    if (node == null) {
      return Applied.rejected(
          state, RejectReason.UNKNOWN_NODE, "node " + c.nodeId() + " is not registered");
    }
    Outcome outcome = new Outcome.NodeSlotsSet(c.nodeId(), c.slots());
    if (node.slots() == c.slots()) {
      return Applied.redundant(state, outcome);
    }
    return Applied.ok(state.withNodeSlots(c.nodeId(), c.slots()), outcome);
  }

  /**
   * The rejection for a command from any process of {@code nodeId} but the registered one, or empty
   * when {@code nodeEpoch} is the registered epoch. A newer epoch than the registered one is
   * refused too: a process registers before it proposes anything else.
   */
  static Optional<Applied> refuseUnlessCurrent(MetadataState state, int nodeId, long nodeEpoch) {
    NodeRecord node = state.nodes().get(nodeId);
    if (node == null) {
      return Optional.of(
          Applied.rejected(
              state, RejectReason.NODE_NOT_REGISTERED, "node " + nodeId + " is not registered"));
    }
    if (nodeEpoch < node.nodeEpoch()) {
      return Optional.of(
          Applied.rejected(
              state,
              RejectReason.STALE_NODE_EPOCH,
              "node " + nodeId + " epoch " + nodeEpoch + " < registered " + node.nodeEpoch()));
    }
    if (nodeEpoch > node.nodeEpoch()) {
      return Optional.of(
          Applied.rejected(
              state,
              RejectReason.NODE_NOT_REGISTERED,
              "node " + nodeId + " epoch " + nodeEpoch + " is not registered yet"));
    }
    return Optional.empty();
  }

  /**
   * The node a new stream goes to: among nodes with at least one slot, the lowest ratio of placed
   * streams to slots; ties go to the lowest node id (nodes are visited in id order and only a
   * strictly lower ratio replaces the best so far). Ratios are compared by cross-multiplying:
   * placed counts stay far below 2^47 and slots below 2^16, so the products fit in a long.
   */
  static Optional<NodeRecord> placementTarget(MetadataState state) {
    NodeRecord best = null;
    for (NodeRecord node : state.nodes().values()) {
      if (node.slots() == 0) {
        continue;
      }
      if (best == null
          || node.placedStreams() * best.slots() < best.placedStreams() * node.slots()) {
        best = node;
      }
    }
    return Optional.ofNullable(best);
  }
}
