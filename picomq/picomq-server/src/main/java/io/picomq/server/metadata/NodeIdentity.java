package io.picomq.server.metadata;

import java.util.Objects;

/**
 * Who this node process is: a stable id, the epoch of this process (fresh per start, its start time
 * in ms), the address clients are redirected to, and its placement slots.
 */
public record NodeIdentity(int nodeId, long nodeEpoch, String advertisedAddress, int slots) {
  public NodeIdentity {
    Objects.requireNonNull(advertisedAddress, "advertisedAddress");
    if (nodeId < 0 || nodeEpoch < 0 || slots < 0) {
      throw new IllegalArgumentException(
          "node id, node epoch and slots must be >= 0: " + nodeId + "@" + nodeEpoch + " " + slots);
    }
  }
}
