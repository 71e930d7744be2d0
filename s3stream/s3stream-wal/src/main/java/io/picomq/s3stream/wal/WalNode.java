package io.picomq.s3stream.wal;

import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.Objects;
import java.util.Optional;

/**
 * Whose WAL this is: a node of a cluster, started under an epoch.
 *
 * <p>The epoch fences: every start of a node must use an epoch higher than any the node used before
 * (the host allocates it in its metadata). A WAL refuses to start under an epoch it finds already
 * used in storage, and a writer fenced by a newer epoch stores nothing more.
 *
 * @param clusterId the cluster, part of the node prefix
 * @param nodeId the node
 * @param epoch this start's node epoch, {@code >= 0}
 * @param type names one of several WALs of a node; empty for the usual single WAL
 */
public record WalNode(String clusterId, int nodeId, long epoch, Optional<String> type) {

  public WalNode {
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(type, "type");
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
    }
  }

  /** The usual single WAL of a node. */
  public static WalNode of(String clusterId, int nodeId, long epoch) {
    return new WalNode(clusterId, nodeId, epoch, Optional.empty());
  }

  /** The same node under another epoch. */
  public WalNode withEpoch(long newEpoch) {
    return new WalNode(clusterId, nodeId, newEpoch, type);
  }

  /** The key prefix every epoch of this node's WAL writes under (see {@link WalObjectKeys}). */
  public String nodePrefix() {
    return type.map(t -> WalObjectKeys.nodePrefix(clusterId, nodeId, t))
        .orElseGet(() -> WalObjectKeys.nodePrefix(clusterId, nodeId));
  }
}
