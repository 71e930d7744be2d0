package io.picomq.s3stream.core.logcache;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.RecordBatchHeader;

/**
 * One appended record batch in its encoded form ({@code RecordBatchCodec}): {@code count} offsets
 * of one stream from {@code baseOffset}.
 *
 * <p>Ownership: a batch inside the cache holds the cache's reference to {@code encoded}; a batch
 * handed out by {@link LogCache#get} holds a reference of its own, which the receiver releases
 * ({@link #release()}).
 *
 * @param baseOffset the first offset
 * @param count the number of offsets, {@code > 0}
 * @param encoded the whole encoded batch, header included, as readable bytes
 */
public record CachedBatch(long baseOffset, int count, ByteBuf encoded) {

  /** The offset after the last one. */
  public long nextOffset() {
    return baseOffset + count;
  }

  /** Bytes of the encoded batch. */
  public int sizeBytes() {
    return encoded.readableBytes();
  }

  /** The payload as appended: a slice of {@link #encoded()} sharing its reference. */
  public ByteBuf payload() {
    return encoded.slice(
        encoded.readerIndex() + RecordBatchHeader.SIZE,
        encoded.readableBytes() - RecordBatchHeader.SIZE);
  }

  /** Releases this holder's reference. */
  public void release() {
    encoded.release();
  }
}
