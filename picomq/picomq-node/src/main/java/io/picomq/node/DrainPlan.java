package io.picomq.node;

import io.picomq.meta.state.PendingTransfer;
import java.util.List;

/** What draining a node would do, as {@link ClusterPlans#drain} planned it. */
sealed interface DrainPlan {

  /** No node with that id is registered. */
  record UnknownNode(int nodeId) implements DrainPlan {}

  /**
   * No other node can take streams (each has 0 slots, was taken over, or is presumed dead): the
   * drain would leave the cluster nowhere to place a stream, so it is refused as a whole.
   */
  record NoTarget(int nodeId) implements DrainPlan {}

  /**
   * The moves, in stream id order, and the node's streams left alone because a transfer of theirs
   * is already pending.
   */
  record Moves(int nodeId, List<PlannedMove> moves, List<PendingTransfer> alreadyMoving)
      implements DrainPlan {
    public Moves {
      moves = List.copyOf(moves);
      alreadyMoving = List.copyOf(alreadyMoving);
    }
  }
}
