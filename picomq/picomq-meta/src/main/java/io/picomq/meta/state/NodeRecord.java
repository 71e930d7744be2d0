package io.picomq.meta.state;

/**
 * A registered node: its stable id, the epoch of its current process (a fresh one per start), where
 * clients reach it, and how many placement slots it offers.
 *
 * <p>{@code placedStreams} counts the streams whose {@link StreamEntry#nodeId()} is this node. It
 * is derived from the streams (kept in step by {@link MetadataState}, recomputed on restore) and is
 * what placement divides by {@code slots}.
 *
 * <p>{@code takerNodeId} is {@link #NO_TAKER} while the process is in good standing. Once the
 * process stopped renewing its liveness row and another node took over its WAL, it is that node's
 * id: the process may propose nothing more, the taker commits and closes its open streams, and
 * placement passes it by. A new process of the node (a higher epoch) registers in good standing.
 */
public record NodeRecord(
    int nodeId,
    long nodeEpoch,
    String advertisedAddress,
    int slots,
    long placedStreams,
    int takerNodeId) {

  /** The {@code takerNodeId} of a node nobody took over. */
  public static final int NO_TAKER = -1;

  public NodeRecord {
    if (nodeId < 0) {
      throw new IllegalArgumentException("nodeId must be >= 0, got " + nodeId);
    }
    if (nodeEpoch < 0) {
      throw new IllegalArgumentException("node epoch of node " + nodeId + " must be >= 0");
    }
    if (advertisedAddress == null) {
      throw new IllegalArgumentException("advertised address of node " + nodeId + " is null");
    }
    if (slots < 0) {
      throw new IllegalArgumentException("slots of node " + nodeId + " must be >= 0");
    }
    if (takerNodeId < NO_TAKER || takerNodeId == nodeId) {
      throw new IllegalArgumentException("node " + nodeId + " has taker " + takerNodeId);
    }
    if (placedStreams < 0) {
      throw new IllegalArgumentException("placed streams of node " + nodeId + " went negative");
    }
  }

  /** A process in good standing. */
  public NodeRecord(
      int nodeId, long nodeEpoch, String advertisedAddress, int slots, long placedStreams) {
    this(nodeId, nodeEpoch, advertisedAddress, slots, placedStreams, NO_TAKER);
  }

  /** Whether another node took this process over (see {@link #takerNodeId}). */
  public boolean isTakenOver() {
    return takerNodeId != NO_TAKER;
  }

  NodeRecord withPlacedStreams(long count) {
    return new NodeRecord(nodeId, nodeEpoch, advertisedAddress, slots, count, takerNodeId);
  }

  NodeRecord withTaker(int taker) {
    return new NodeRecord(nodeId, nodeEpoch, advertisedAddress, slots, placedStreams, taker);
  }
}
