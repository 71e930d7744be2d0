package io.picomq.sql.lease;

/**
 * Told about every change of a {@link MaintenanceLease}'s state, in order, on the lease's control
 * thread (or on the thread calling {@code close()}, for the final change to {@link
 * LeaseState.Follower}). Must return quickly: start or stop maintenance loops elsewhere.
 */
@FunctionalInterface
public interface LeaseListener {
  void onChange(LeaseState state);
}
