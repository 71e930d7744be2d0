package io.picomq.s3stream.codec;

/**
 * The fixed 33-byte header of an encoded record batch, read without touching the payload. The
 * object writer uses it to sort and index batches it holds only in encoded form.
 *
 * <p>Layout (big-endian): {@code magic u8 = 0x22 | streamId i64 | epoch i64 | baseOffset i64 |
 * count i32 | payloadLength i32}, then {@code payloadLength} payload bytes.
 *
 * @param streamId the stream the offsets belong to
 * @param epoch the stream epoch the batch was appended under
 * @param baseOffset the first offset of the batch
 * @param count the number of offsets, negative for a link record
 * @param payloadLength the number of payload bytes after the header, never negative
 */
public record RecordBatchHeader(
    long streamId, long epoch, long baseOffset, int count, int payloadLength) {

  /** The one magic byte the upstream writes and we accept. */
  public static final byte MAGIC = 0x22;

  /** Bytes of the fixed header. */
  public static final int SIZE = 1 + 8 + 8 + 8 + 4 + 4;

  public RecordBatchHeader {
    if (payloadLength < 0) {
      throw new IllegalArgumentException("payloadLength must be >= 0: " + payloadLength);
    }
  }

  /** The offset after the last one the batch covers; see {@link RecordBatch#lastOffset()}. */
  public long lastOffset() {
    return lastOffset(baseOffset, count);
  }

  /** True for a link record (negative count). */
  public boolean isLink() {
    return count < 0;
  }

  /** Bytes of the whole encoded batch: header plus payload. */
  public int encodedSize() {
    return SIZE + payloadLength;
  }

  // A link record's negative count still advances the offset by its magnitude. The widening to
  // long happens before negation so Integer.MIN_VALUE advances by 2^31, as upstream computes it.
  static long lastOffset(long baseOffset, int count) {
    return count < 0 ? baseOffset - (long) count : baseOffset + count;
  }
}
