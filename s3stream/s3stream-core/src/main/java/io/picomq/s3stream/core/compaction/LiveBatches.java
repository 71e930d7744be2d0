package io.picomq.s3stream.core.compaction;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.object.ObjectWriter;
import java.util.List;

/**
 * Copies the live batches of a block into the object being written. A batch is live if it ends
 * after the stream's start offset; batches are never cut, so the first live batch of a block that
 * straddles the start may begin before it.
 */
final class LiveBatches {

  private LiveBatches() {}

  /**
   * Appends a copy of each live batch to {@code writer} and releases every batch of {@code
   * batches}, also when an append throws.
   *
   * @return bytes of the batches copied, encoded
   */
  static long copy(
      List<RecordBatch> batches,
      long startOffset,
      ObjectWriter writer,
      ByteBufAllocator allocator) {
    long copied = 0;
    int i = 0;
    try {
      for (; i < batches.size(); i++) {
        RecordBatch batch = batches.get(i);
        try {
          if (batch.lastOffset() > startOffset) {
            // A copy, so the block just read can be freed while the new object waits for the rest.
            writer.append(RecordBatchCodec.encode(batch, allocator));
            copied += batch.encodedSize();
          }
        } finally {
          batch.release();
        }
      }
    } finally {
      for (int j = i + 1; j < batches.size(); j++) {
        batches.get(j).release();
      }
    }
    return copied;
  }
}
