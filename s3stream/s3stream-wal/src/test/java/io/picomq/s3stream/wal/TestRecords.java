package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import java.util.Random;

/**
 * Record bodies as the engine appends them: encoded record batches with random payloads. Public for
 * the WAL tests of other modules.
 */
public final class TestRecords {

  private TestRecords() {}

  /** An encoded batch of stream {@code streamId} with {@code payloadBytes} random bytes. */
  public static ByteBuf body(Random random, long streamId, long baseOffset, int payloadBytes) {
    byte[] payload = new byte[payloadBytes];
    random.nextBytes(payload);
    RecordBatch batch =
        new RecordBatch(streamId, 1, baseOffset, 1, Unpooled.wrappedBuffer(payload));
    return RecordBatchCodec.encode(batch, UnpooledByteBufAllocator.DEFAULT);
  }

  public static byte[] bytes(ByteBuf buf) {
    return ByteBufUtil.getBytes(buf);
  }
}
