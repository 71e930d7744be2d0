package io.picomq.node;

/** One stream move an operator verb plans: {@code streamId} from its node to another. */
record PlannedMove(long streamId, int fromNodeId, int toNodeId) {
  PlannedMove {
    if (fromNodeId == toNodeId) {
      throw new IllegalArgumentException(
          "a move of stream " + streamId + " from node " + fromNodeId + " to itself");
    }
  }
}
