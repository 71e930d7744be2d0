package io.picomq.meta.state;

/** The records {@code [startOffset, endOffset)} of one stream held in an object. */
public record CatalogRange(long streamId, long startOffset, long endOffset)
    implements Comparable<CatalogRange> {

  public CatalogRange {
    if (streamId < 0 || startOffset < 0 || endOffset <= startOffset) {
      throw new IllegalArgumentException(
          "range needs streamId >= 0 and 0 <= start < end, got stream "
              + streamId
              + " "
              + startOffset
              + ".."
              + endOffset);
    }
  }

  /** Orders by stream, then start offset: the order of an object's index. */
  @Override
  public int compareTo(CatalogRange other) {
    int byStream = Long.compare(streamId, other.streamId);
    return byStream != 0 ? byStream : Long.compare(startOffset, other.startOffset);
  }
}
