package io.picomq.sql.lease;

import java.util.Optional;

/**
 * The lease row as stored.
 *
 * @param holder the node id of the holder, or empty if released (or never held)
 * @param epoch incremented by every takeover; 0 before the first
 * @param expiresAtMillis the holder's clock reading at which it stops claiming the lease, in
 *     milliseconds since the epoch; 0 when released
 */
public record LeaseRow(Optional<String> holder, long epoch, long expiresAtMillis) {

  /**
   * Whether a node may take the lease over at {@code nowMillis} (by its own clock): it is released,
   * or its expiry has passed. A restarted node waits like any other for its previous incarnation's
   * tenure to expire: two live processes that share a node id must not take the lease from each
   * other in turn.
   */
  public boolean takeable(long nowMillis) {
    return holder.isEmpty() || expiresAtMillis <= nowMillis;
  }
}
