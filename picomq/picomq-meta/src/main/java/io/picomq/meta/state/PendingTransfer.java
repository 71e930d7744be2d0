package io.picomq.meta.state;

/**
 * A stream handoff in progress: the stream was open on {@code fromNodeId} at {@code epoch} when the
 * transfer was recorded; it completes once that node has closed the stream at exactly that epoch.
 */
public record PendingTransfer(long streamId, int fromNodeId, int toNodeId, long epoch) {
  public PendingTransfer {
    if (streamId < 0 || fromNodeId < 0 || toNodeId < 0 || epoch < 0) {
      throw new IllegalArgumentException(
          "transfer of stream "
              + streamId
              + " needs non-negative ids and epoch, got from "
              + fromNodeId
              + " to "
              + toNodeId
              + " at "
              + epoch);
    }
  }
}
