package io.picomq.server.routing;

/**
 * Whether a node process is known to have stopped: its liveness row lapsed (or it has none). The
 * router never redirects a client to such a process.
 */
@FunctionalInterface
public interface NodeLivenessCheck {

  /** A check that never presumes a node dead (a single node, or tests without liveness rows). */
  NodeLivenessCheck NONE_DEAD = (nodeId, nodeEpoch) -> false;

  boolean presumedDead(int nodeId, long nodeEpoch);
}
