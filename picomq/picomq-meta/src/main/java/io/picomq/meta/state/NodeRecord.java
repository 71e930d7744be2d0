package io.picomq.meta.state;

/**
 * A registered node: its stable id, the epoch of its current process (a fresh one per start), where
 * clients reach it, and how many placement slots it offers.
 *
 * <p>{@code placedStreams} counts the streams whose {@link StreamEntry#nodeId()} is this node. It
 * is derived from the streams (kept in step by {@link MetadataState}, recomputed on restore) and is
 * what placement divides by {@code slots}.
 */
public record NodeRecord(
    int nodeId, long nodeEpoch, String advertisedAddress, int slots, long placedStreams) {

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
    if (placedStreams < 0) {
      throw new IllegalArgumentException("placed streams of node " + nodeId + " went negative");
    }
  }

  NodeRecord withPlacedStreams(long count) {
    return new NodeRecord(nodeId, nodeEpoch, advertisedAddress, slots, count);
  }
}
