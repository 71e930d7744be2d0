package io.picomq.server.service;

/**
 * Whether this node may still acknowledge appends: false once it could not renew its liveness row
 * for so long that the row may lapse, after which another node may take its WAL over. Refusing
 * before the lapse keeps a node that is cut off from the database from acknowledging what it can no
 * longer vouch for (the WAL fence makes it safe anyway; this makes the answer honest).
 */
@FunctionalInterface
public interface LivenessGate {

  /** A node without liveness rows (a single node on SQLite, tests): always in standing. */
  LivenessGate ALWAYS_OPEN = () -> true;

  boolean mayAcknowledge();
}
