package io.picomq.s3stream.core.compaction;

/**
 * One data block of a stream-set object, as the planner sees it: a stream's offsets {@code
 * [startOffset, endOffset)} in {@code sizeBytes} bytes at {@code startPosition}. Taken from the
 * object's index; the planner reads nothing else.
 *
 * @param objectId the stream-set object whose index lists the block
 * @param streamId the stream of every batch in the block
 * @param startOffset the block's first offset
 * @param endOffset the block's exclusive end offset
 * @param startPosition where the block starts (in a composite object: in its component)
 * @param sizeBytes bytes of the block, header included: what reading it costs
 */
public record SourceBlock(
    long objectId,
    long streamId,
    long startOffset,
    long endOffset,
    long startPosition,
    int sizeBytes) {

  public SourceBlock {
    if (objectId < 0
        || streamId < 0
        || startOffset < 0
        || endOffset < startOffset
        || startPosition < 0
        || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "bad block of object "
              + objectId
              + ": stream "
              + streamId
              + " ["
              + startOffset
              + ", "
              + endOffset
              + ") at "
              + startPosition
              + ", "
              + sizeBytes
              + " bytes");
    }
  }
}
