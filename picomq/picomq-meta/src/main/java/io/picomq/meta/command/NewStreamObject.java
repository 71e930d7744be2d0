package io.picomq.meta.command;

/**
 * A stream object created by a commit: records {@code [startOffset, endOffset)} of one stream,
 * appended at stream epoch {@code epoch}, in object {@code objectId} of {@code objectSizeBytes}.
 */
public record NewStreamObject(
    long objectId,
    long streamId,
    long epoch,
    long startOffset,
    long endOffset,
    long objectSizeBytes) {

  public NewStreamObject {
    if (objectId < 0
        || streamId < 0
        || epoch < 0
        || objectSizeBytes < 0
        || startOffset < 0
        || endOffset <= startOffset) {
      throw new IllegalArgumentException(
          "stream object needs non-negative ids, epoch, size and 0 <= start < end, got object "
              + objectId
              + " stream "
              + streamId
              + " "
              + startOffset
              + ".."
              + endOffset);
    }
  }
}
