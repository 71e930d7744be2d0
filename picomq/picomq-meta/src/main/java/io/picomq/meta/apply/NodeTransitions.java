package io.picomq.meta.apply;

import io.picomq.meta.command.Command.RegisterNode;
import io.picomq.meta.command.Command.SetNodeSlots;
import io.picomq.meta.command.Command.TakeOverNode;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import java.util.Optional;

/** Node registration, slots, takeover, the node-epoch check and placement. */
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
      if (c.nodeEpoch() == known.nodeEpoch() && known.isTakenOver()) {
        return takenOver(state, known);
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
   * Hands the registered process of a node that stopped renewing its liveness to a taker. Refused
   * when the named process is no longer the registered one (the node came back: it recovers its own
   * WAL) or when the taker is not a current process in good standing. A repeat is redundant;
   * another taker replaces the previous one (which may have died mid-way: every step it took is
   * idempotent, so the new taker reruns them).
   */
  static Applied takeOver(MetadataState state, TakeOverNode c) {
    Optional<Applied> refused = refuseUnlessCurrent(state, c.takerNodeId(), c.takerNodeEpoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    NodeRecord node = state.nodes().get(c.nodeId());
    if (node == null) {
      return Applied.rejected(
          state, RejectReason.UNKNOWN_NODE, "node " + c.nodeId() + " is not registered");
    }
    if (node.nodeEpoch() != c.nodeEpoch()) {
      return Applied.rejected(
          state,
          RejectReason.STALE_NODE_EPOCH,
          "node "
              + c.nodeId()
              + " is registered at epoch "
              + node.nodeEpoch()
              + ", not "
              + c.nodeEpoch());
    }
    Outcome outcome = new Outcome.NodeTakenOver(c.nodeId(), c.nodeEpoch(), c.takerNodeId());
    if (node.takerNodeId() == c.takerNodeId()) {
      return Applied.redundant(state, outcome);
    }
    return Applied.ok(state.withNodeTakenOver(c.nodeId(), c.takerNodeId()), outcome);
  }

  /**
   * Whether {@code proposerNodeId} may act for the streams of {@code ownerNodeId}: it is that node,
   * or it took that node's process over. The proposer's own standing is checked separately.
   */
  static boolean actsFor(MetadataState state, int proposerNodeId, int ownerNodeId) {
    if (proposerNodeId == ownerNodeId) {
      return true;
    }
    NodeRecord owner = state.nodes().get(ownerNodeId);
    return owner != null && owner.takerNodeId() == proposerNodeId;
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
    if (node.isTakenOver()) {
      return Optional.of(takenOver(state, node));
    }
    return Optional.empty();
  }

  private static Applied takenOver(MetadataState state, NodeRecord node) {
    return Applied.rejected(
        state,
        RejectReason.NODE_TAKEN_OVER,
        "node "
            + node.nodeId()
            + " epoch "
            + node.nodeEpoch()
            + " was taken over by node "
            + node.takerNodeId()
            + "; it must register with a new epoch");
  }

  /**
   * The node a new stream goes to: among nodes in good standing with at least one slot, the lowest
   * ratio of placed streams to slots; ties go to the lowest node id (nodes are visited in id order
   * and only a strictly lower ratio replaces the best so far). Ratios are compared by
   * cross-multiplying: placed counts stay far below 2^47 and slots below 2^16, so the products fit
   * in a long.
   */
  static Optional<NodeRecord> placementTarget(MetadataState state) {
    NodeRecord best = null;
    for (NodeRecord node : state.nodes().values()) {
      if (node.slots() == 0 || node.isTakenOver()) {
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
