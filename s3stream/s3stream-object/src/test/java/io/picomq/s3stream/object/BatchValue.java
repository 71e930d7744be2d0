package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import java.util.List;

/** A record batch as a plain value (payload as hex), so tests compare batches with equals. */
record BatchValue(long streamId, long epoch, long baseOffset, int count, String payloadHex) {

  static BatchValue of(RecordBatch batch) {
    return new BatchValue(
        batch.streamId(),
        batch.epoch(),
        batch.baseOffset(),
        batch.count(),
        ByteBufUtil.hexDump(batch.payload()));
  }

  /** A batch with a payload of {@code payloadBytes} bytes derived from its coordinates. */
  static BatchValue of(long streamId, long baseOffset, int count, int payloadBytes) {
    byte[] payload = new byte[payloadBytes];
    for (int i = 0; i < payloadBytes; i++) {
      payload[i] = (byte) (streamId * 31 + baseOffset * 7 + i);
    }
    return new BatchValue(streamId, 3, baseOffset, count, ByteBufUtil.hexDump(payload));
  }

  /** Offset after the last one. */
  long lastOffset() {
    return count < 0 ? baseOffset - count : baseOffset + count;
  }

  int payloadLength() {
    return payloadHex.length() / 2;
  }

  /** The batch encoded into a fresh buffer the caller owns. */
  ByteBuf encode() {
    ByteBuf payload = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(payloadHex));
    try {
      return RecordBatchCodec.encode(
          new RecordBatch(streamId, epoch, baseOffset, count, payload),
          UnpooledByteBufAllocator.DEFAULT);
    } finally {
      payload.release();
    }
  }

  /** Converts and releases decoded batches. */
  static List<BatchValue> consume(List<RecordBatch> batches) {
    List<BatchValue> values = batches.stream().map(BatchValue::of).toList();
    batches.forEach(RecordBatch::release);
    return values;
  }
}
