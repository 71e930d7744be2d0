package io.picomq.s3stream.codec;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * One append: {@code count} consecutive offsets of one stream, starting at {@code baseOffset},
 * written under the stream's {@code epoch}, with an opaque payload.
 *
 * <p>A negative {@code count} marks a link record, which stands for {@code -count} offsets held
 * elsewhere (the upstream uses them to point at data of another stream). A zero {@code count} is
 * accepted because the upstream encodes and decodes it (its {@code zero_ids} vector); such a batch
 * covers no offsets ({@code lastOffset() == baseOffset}).
 *
 * <p>Offsets use Java's wrapping {@code long} arithmetic, exactly as the upstream does: its {@code
 * max_values} vector ({@code baseOffset = Long.MAX_VALUE}, {@code count = Integer.MAX_VALUE}) pins
 * a wrapped, negative last offset. This type does not reject such values; the stream layer that
 * assigns offsets never produces them.
 *
 * <p>Ownership: the batch carries the one payload reference its creator handed in (or that {@link
 * RecordBatchCodec#decode} retained for it). Whoever holds the batch last releases that reference
 * once, via {@link #release()}. Equality compares the payload's readable bytes (Netty's {@link
 * ByteBuf#equals}), not buffer identity.
 *
 * @param streamId the stream the offsets belong to
 * @param epoch the stream epoch the batch was appended under
 * @param baseOffset the first offset of the batch
 * @param count the number of offsets ({@code > 0}), or the negated number for a link record
 * @param payload the record bytes; its readable bytes are the payload
 */
public record RecordBatch(long streamId, long epoch, long baseOffset, int count, ByteBuf payload) {

  public RecordBatch {
    Objects.requireNonNull(payload, "payload");
  }

  /** The offset after the last one this batch covers (exclusive end). */
  public long lastOffset() {
    return RecordBatchHeader.lastOffset(baseOffset, count);
  }

  /** True for a link record (negative count). */
  public boolean isLink() {
    return count < 0;
  }

  /** Bytes of the payload (its readable bytes). */
  public int payloadLength() {
    return payload.readableBytes();
  }

  /** Bytes of this batch once encoded: the fixed header plus the payload. */
  public int encodedSize() {
    return RecordBatchHeader.SIZE + payload.readableBytes();
  }

  /** Releases one reference of the payload; see the class comment for who calls this. */
  public void release() {
    payload.release();
  }
}
