package io.picomq.s3stream.core.recovery;

/**
 * What a recovery did.
 *
 * @param walRecords records the WAL returned
 * @param uploadedRecords records re-uploaded and committed
 * @param droppedRecords records already committed, of closed streams, or after a gap
 * @param uploadedBytes bytes of the uploaded records
 * @param uploads upload batches committed
 * @param closedStreams streams of earlier processes closed
 */
public record RecoveryReport(
    int walRecords,
    int uploadedRecords,
    int droppedRecords,
    long uploadedBytes,
    int uploads,
    int closedStreams) {}
