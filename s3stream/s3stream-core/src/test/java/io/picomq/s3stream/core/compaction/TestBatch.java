package io.picomq.s3stream.core.compaction;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A record batch as plain values, so tests can compare what was written with what is read. */
record TestBatch(long streamId, long epoch, long baseOffset, int count, String payload) {

  long lastOffset() {
    return baseOffset + count;
  }

  /** The encoded batch; the caller owns it. */
  ByteBuf encode(ByteBufAllocator allocator) {
    ByteBuf bytes = Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8);
    RecordBatch batch = new RecordBatch(streamId, epoch, baseOffset, count, bytes);
    try {
      return RecordBatchCodec.encode(batch, allocator);
    } finally {
      batch.release();
    }
  }

  /** Values of the batches, which are released. */
  static List<TestBatch> consume(List<RecordBatch> batches) {
    List<TestBatch> values = new ArrayList<>(batches.size());
    try {
      for (RecordBatch batch : batches) {
        values.add(
            new TestBatch(
                batch.streamId(),
                batch.epoch(),
                batch.baseOffset(),
                batch.count(),
                batch.payload().toString(StandardCharsets.UTF_8)));
      }
      return values;
    } finally {
      batches.forEach(RecordBatch::release);
    }
  }
}
