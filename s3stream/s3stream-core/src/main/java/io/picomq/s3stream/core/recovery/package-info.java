/**
 * Recovery of a WAL: what it still holds of earlier processes of its node is filtered against the
 * committed end offsets ({@link io.picomq.s3stream.core.recovery.RecoveryPlan}), uploaded and
 * committed in bounded batches, the WAL is reset, and the streams the earlier processes had open
 * are closed ({@link io.picomq.s3stream.core.recovery.WalRecovery}). It runs at start on the node's
 * own WAL, and on a failed node's WAL when another node takes it over.
 */
package io.picomq.s3stream.core.recovery;
