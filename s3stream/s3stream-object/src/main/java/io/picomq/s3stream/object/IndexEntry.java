package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.RecordBatchHeader;
import java.util.Optional;

/**
 * One 36-byte entry of an index block: which offsets of which stream a data block holds, and where
 * the block is.
 *
 * <pre>
 *   streamId i64 | startOffset i64 | endOffsetDelta i32 | recordCount i32 | startPosition i64 |
 *   blockSize i32
 * </pre>
 *
 * <p>In a normal object {@code startPosition} is a position in the object itself; in a composite
 * object it is a position in the component object the entry belongs to.
 *
 * @param streamId the stream of every batch in the block, {@code >= 0}
 * @param startOffset the base offset of the block's first batch, {@code >= 0}
 * @param endOffsetDelta {@code endOffset - startOffset}, where endOffset is the exclusive end of
 *     the block's last batch; {@code >= 0}
 * @param recordCount the number of record batches in the block, {@code >= 1}
 * @param startPosition where the block (its 10-byte header) starts, {@code >= 0}
 * @param blockSize bytes of the block including its header; at least the header plus a 33-byte
 *     batch header per batch
 */
public record IndexEntry(
    long streamId,
    long startOffset,
    int endOffsetDelta,
    int recordCount,
    long startPosition,
    int blockSize) {

  /** Bytes of one encoded entry. */
  public static final int SIZE = 36;

  public IndexEntry {
    problem(streamId, startOffset, endOffsetDelta, recordCount, startPosition, blockSize)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
  }

  /** The exclusive end offset of the block. */
  public long endOffset() {
    return startOffset + endOffsetDelta;
  }

  /** The exclusive end position of the block. */
  public long endPosition() {
    return startPosition + blockSize;
  }

  /** Appends the 36 entry bytes to {@code out}; does not release it. */
  public void encodeTo(ByteBuf out) {
    out.writeLong(streamId)
        .writeLong(startOffset)
        .writeInt(endOffsetDelta)
        .writeInt(recordCount)
        .writeLong(startPosition)
        .writeInt(blockSize);
  }

  /**
   * What is wrong with these field values, if anything. One rule for both callers: the constructor
   * (a caller bug) and the index decoder (corrupt bytes), which report it differently.
   */
  static Optional<String> problem(
      long streamId,
      long startOffset,
      int endOffsetDelta,
      int recordCount,
      long startPosition,
      int blockSize) {
    if (streamId < 0) {
      return Optional.of("stream id " + streamId + " is negative");
    }
    if (startOffset < 0 || endOffsetDelta < 0 || startOffset > Long.MAX_VALUE - endOffsetDelta) {
      return Optional.of(
          "offsets [" + startOffset + ", +" + endOffsetDelta + ") of stream " + streamId);
    }
    if (recordCount < 1) {
      return Optional.of("record count " + recordCount + " of stream " + streamId);
    }
    if (startPosition < 0 || startPosition > Long.MAX_VALUE - blockSize) {
      return Optional.of("block position " + startPosition + " of stream " + streamId);
    }
    long minSize = DataBlockCodec.HEADER_SIZE + (long) RecordBatchHeader.SIZE * recordCount;
    if (blockSize < minSize) {
      return Optional.of(
          "block size "
              + blockSize
              + " cannot hold "
              + recordCount
              + " batches of stream "
              + streamId);
    }
    return Optional.empty();
  }
}
