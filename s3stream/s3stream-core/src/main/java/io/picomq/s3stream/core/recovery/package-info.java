/**
 * Recovery on start after a crash: what the WAL still holds of earlier processes of this node is
 * filtered against the committed end offsets ({@link
 * io.picomq.s3stream.core.recovery.RecoveryPlan}), uploaded and committed in bounded batches, the
 * WAL is reset, and the streams the earlier processes had open are closed ({@link
 * io.picomq.s3stream.core.recovery.WalRecovery}).
 */
package io.picomq.s3stream.core.recovery;
