package io.picomq.s3stream.api;

/** The offsets {@code [startOffset, endOffset)} of one stream. */
public record StreamOffsetRange(long streamId, long startOffset, long endOffset) {
  public StreamOffsetRange {
    if (streamId < 0 || startOffset < 0 || endOffset < startOffset) {
      throw new IllegalArgumentException(
          "invalid range of stream " + streamId + ": [" + startOffset + ", " + endOffset + ")");
    }
  }
}
