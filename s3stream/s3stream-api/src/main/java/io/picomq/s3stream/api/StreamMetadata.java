package io.picomq.s3stream.api;

/**
 * What the metadata plane knows of one stream.
 *
 * @param epoch the stream's epoch: -1 until first opened, bumped by every open; writers of an older
 *     epoch are fenced
 * @param startOffset the first offset still readable (moves forward on trim)
 * @param endOffset the committed end: every offset below it is in a committed object
 * @param ownerNodeId the node that opened it, or -1 when closed
 */
public record StreamMetadata(
    long streamId,
    long epoch,
    long startOffset,
    long endOffset,
    StreamState state,
    int ownerNodeId) {

  public StreamMetadata {
    if (streamId < 0) {
      throw new IllegalArgumentException("streamId must be >= 0, got " + streamId);
    }
    if (startOffset < 0 || endOffset < startOffset) {
      throw new IllegalArgumentException(
          "stream "
              + streamId
              + ": need 0 <= startOffset <= endOffset, got "
              + startOffset
              + ".."
              + endOffset);
    }
  }

  /** Whether a stream is open for appends on its owner or closed. */
  public enum StreamState {
    OPENED,
    CLOSED
  }
}
