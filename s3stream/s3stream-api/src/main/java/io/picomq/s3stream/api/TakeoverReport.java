package io.picomq.s3stream.api;

/**
 * What a takeover of a failed node's WAL did ({@link StreamEngine#takeOver}).
 *
 * @param nodeId the failed node
 * @param fenceEpoch the epoch its WAL was fenced at; -1 when the node had no stream open, so the
 *     WAL was not touched
 * @param walRecords records its WAL held above the last trim
 * @param uploadedRecords records uploaded and committed to their streams
 * @param droppedRecords records already committed, of streams not open, or after a gap
 * @param uploadedBytes bytes of the uploaded records
 * @param uploads upload batches committed
 * @param closedStreams streams closed on the node's behalf
 */
public record TakeoverReport(
    int nodeId,
    long fenceEpoch,
    int walRecords,
    int uploadedRecords,
    int droppedRecords,
    long uploadedBytes,
    int uploads,
    int closedStreams) {

  /** The report of a takeover that found nothing open: nothing was read, written or closed. */
  public static TakeoverReport nothingOpen(int nodeId) {
    return new TakeoverReport(nodeId, -1, 0, 0, 0, 0, 0, 0);
  }

  /** Whether the node's WAL was fenced and read (false for {@link #nothingOpen}). */
  public boolean fenced() {
    return fenceEpoch >= 0;
  }
}
