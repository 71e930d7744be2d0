package io.picomq.s3stream.walobject;

/**
 * One entry of a node's range index: the offsets {@code [startOffset, endOffset)} of a stream live
 * in stream-set object {@code objectId}.
 *
 * @param startOffset first offset covered
 * @param endOffset offset after the last one covered
 * @param objectId the stream-set object holding them
 */
public record RangeIndexEntry(long startOffset, long endOffset, long objectId) {

  /** Bytes of one encoded entry. */
  public static final int SIZE = 24;
}
