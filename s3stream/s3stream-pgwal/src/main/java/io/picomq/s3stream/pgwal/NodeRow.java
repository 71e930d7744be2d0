package io.picomq.s3stream.pgwal;

import java.util.OptionalLong;

/**
 * A node's row of {@code pico_wal_node}.
 *
 * @param epoch the epoch that claimed the node last; -1 before the first claim
 * @param claimId the WAL instance that made that claim
 * @param trimOffset records at or below it are discarded; -1 for none
 * @param ring the ring the node's slot tables were last written with
 * @param timeline the server's timeline at the last claim, if it was known
 */
record NodeRow(
    long epoch, String claimId, long trimOffset, RingGeometry ring, OptionalLong timeline) {}
