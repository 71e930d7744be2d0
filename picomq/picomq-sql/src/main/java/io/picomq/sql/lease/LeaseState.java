package io.picomq.sql.lease;

/** What this node may do about maintenance right now. */
public sealed interface LeaseState {

  /**
   * This node holds the lease and may run maintenance.
   *
   * @param epoch the lease epoch, unique to this tenure: tag maintenance work with it to fence work
   *     started under an older tenure
   */
  record Leader(long epoch) implements LeaseState {}

  /** Another node (or no node) holds the lease; run no maintenance. */
  record Follower() implements LeaseState {}
}
