/**
 * Node liveness: each node process keeps one row of its own alive in {@code PREFIXnodes_alive},
 * renewing it with the database's clock, and anyone can read every row together with the database's
 * current time to tell which nodes are live, suspect or dead. Because renewal time and expiry are
 * both the database's clock, no two nodes' clocks are ever compared; the renewing node itself only
 * needs its monotonic clock to stop acknowledging writes before its row can lapse (see {@code
 * io.picomq.server.metadata.NodeLiveness}). {@link io.picomq.sql.liveness.LivenessTable} holds the
 * statements, {@link io.picomq.sql.liveness.LivenessView} the pure judgement.
 */
package io.picomq.sql.liveness;
