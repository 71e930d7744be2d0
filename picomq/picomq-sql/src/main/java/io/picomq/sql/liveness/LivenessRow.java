package io.picomq.sql.liveness;

/**
 * One node's liveness row as stored. Both times are the database's clock, in milliseconds since the
 * Unix epoch.
 *
 * @param nodeId the node's stable id
 * @param nodeEpoch the epoch of the process that last renewed it
 * @param ttlMillis the TTL that process renews with
 * @param renewedAtMillis when it last renewed
 * @param expiresAtMillis {@code renewedAtMillis + ttlMillis}: from then on the row has lapsed
 */
public record LivenessRow(
    int nodeId, long nodeEpoch, long ttlMillis, long renewedAtMillis, long expiresAtMillis) {

  public LivenessRow {
    if (ttlMillis <= 0) {
      throw new IllegalArgumentException(
          "ttl of node " + nodeId + " must be positive, not " + ttlMillis + " ms");
    }
  }

  /** Whether the row has lapsed at {@code nowMillis} (database time). */
  public boolean lapsedAt(long nowMillis) {
    return expiresAtMillis <= nowMillis;
  }
}
