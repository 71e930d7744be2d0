package io.picomq.meta.command;

/**
 * Records {@code [startOffset, endOffset)} of one stream inside a committed stream-set object,
 * appended at stream epoch {@code epoch} (the epoch carried by the record batches). A commit of new
 * data is fenced when {@code epoch} is not the stream's current epoch.
 */
public record CommittedRange(long streamId, long epoch, long startOffset, long endOffset)
    implements Comparable<CommittedRange> {

  public CommittedRange {
    if (streamId < 0 || epoch < 0 || startOffset < 0 || endOffset <= startOffset) {
      throw new IllegalArgumentException(
          "committed range needs non-negative ids and 0 <= start < end, got stream "
              + streamId
              + " epoch "
              + epoch
              + " "
              + startOffset
              + ".."
              + endOffset);
    }
  }

  @Override
  public int compareTo(CommittedRange other) {
    int byStream = Long.compare(streamId, other.streamId);
    return byStream != 0 ? byStream : Long.compare(startOffset, other.startOffset);
  }
}
