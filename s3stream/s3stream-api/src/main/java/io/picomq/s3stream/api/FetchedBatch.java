package io.picomq.s3stream.api;

import io.netty.buffer.ByteBuf;

/**
 * One appended batch as read back: {@code count} records starting at {@code baseOffset}, with the
 * payload exactly as appended. The payload belongs to the enclosing {@link FetchResult}, which
 * releases it.
 */
public record FetchedBatch(long baseOffset, int count, ByteBuf payload) {
  /** The offset after this batch's last record. */
  public long nextOffset() {
    return baseOffset + count;
  }
}
