package io.picomq.meta.state;

/**
 * One internal stream as the metadata plane sees it.
 *
 * <p>{@code epoch} is -1 until the first open and grows by one on every open; writers of an older
 * epoch are fenced. {@code startOffset} moves forward on trim; {@code endOffset} is the committed
 * tail: every offset in {@code [startOffset, endOffset)} is covered by catalogued objects.
 *
 * <p>{@code nodeId} is the node the stream belongs to: where placement put it, the last node that
 * opened it, or the target of a completed transfer; {@link #UNPLACED} when none. While {@link
 * StreamStatus#OPEN}, {@code openedNodeEpoch} is the node epoch of the process that opened it;
 * while closed it is {@link #NONE}.
 */
public record StreamEntry(
    long streamId,
    long epoch,
    long startOffset,
    long endOffset,
    StreamStatus status,
    int nodeId,
    long openedNodeEpoch) {

  /** The {@code nodeId} of a stream that belongs to no node yet. */
  public static final int UNPLACED = -1;

  /** The epoch of a never-opened stream, and the opened node epoch of a closed one. */
  public static final long NONE = -1;

  public StreamEntry {
    if (streamId < 0) {
      throw new IllegalArgumentException("streamId must be >= 0, got " + streamId);
    }
    if (epoch < NONE) {
      throw new IllegalArgumentException("epoch of stream " + streamId + " must be >= -1");
    }
    if (startOffset < 0 || startOffset > endOffset) {
      throw new IllegalArgumentException(
          "stream " + streamId + " needs 0 <= start <= end, got " + startOffset + ".." + endOffset);
    }
    if (status == null) {
      throw new IllegalArgumentException("status of stream " + streamId + " is null");
    }
    if (nodeId < UNPLACED) {
      throw new IllegalArgumentException("nodeId of stream " + streamId + " must be >= -1");
    }
    if (status == StreamStatus.OPEN && (nodeId < 0 || openedNodeEpoch < 0 || epoch < 0)) {
      throw new IllegalArgumentException(
          "open stream " + streamId + " needs a node, a node epoch and an epoch");
    }
    if (status == StreamStatus.CLOSED && openedNodeEpoch != NONE) {
      throw new IllegalArgumentException("closed stream " + streamId + " has an opened node epoch");
    }
  }

  /** A freshly created stream: epoch -1, empty at offset 0, closed, on no node. */
  public static StreamEntry created(long streamId) {
    return new StreamEntry(streamId, NONE, 0, 0, StreamStatus.CLOSED, UNPLACED, NONE);
  }

  public boolean isPlaced() {
    return nodeId != UNPLACED;
  }

  public boolean isOpen() {
    return status == StreamStatus.OPEN;
  }

  /** Opened by {@code byNodeId} at {@code byNodeEpoch}: the epoch moves to the next one. */
  public StreamEntry opened(int byNodeId, long byNodeEpoch) {
    return new StreamEntry(
        streamId, epoch + 1, startOffset, endOffset, StreamStatus.OPEN, byNodeId, byNodeEpoch);
  }

  public StreamEntry closed() {
    return new StreamEntry(
        streamId, epoch, startOffset, endOffset, StreamStatus.CLOSED, nodeId, NONE);
  }

  public StreamEntry onNode(int newNodeId) {
    return new StreamEntry(
        streamId, epoch, startOffset, endOffset, status, newNodeId, openedNodeEpoch);
  }

  public StreamEntry withStartOffset(long newStartOffset) {
    return new StreamEntry(
        streamId, epoch, newStartOffset, endOffset, status, nodeId, openedNodeEpoch);
  }

  public StreamEntry withEndOffset(long newEndOffset) {
    return new StreamEntry(
        streamId, epoch, startOffset, newEndOffset, status, nodeId, openedNodeEpoch);
  }
}
