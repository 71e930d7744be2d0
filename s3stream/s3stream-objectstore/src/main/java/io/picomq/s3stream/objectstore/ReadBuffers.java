package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Buffers that a GET fills: direct memory, in pieces of at most {@link #PIECE_BYTES}.
 *
 * <p>Why pieces: Netty's allocator recycles buffers up to about 1 MiB, while a larger one is fresh
 * native memory, which the JDK zeroes and the kernel maps page by page. On a cold replay of 1 GiB
 * through 8 MiB GETs that was a third of the process's CPU. Why direct: a channel reads straight
 * into it, where a heap buffer made the JDK read into a temporary native buffer and copy it over;
 * and a heap array of 1 MiB or more is a humongous object for G1, whose churn dominated the memory
 * store's replays.
 */
public final class ReadBuffers {

  /** The largest piece. */
  public static final int PIECE_BYTES = 1 << 20;

  private ReadBuffers() {}

  /**
   * A buffer with room for exactly {@code length} bytes, none written yet: one buffer up to {@link
   * #PIECE_BYTES}, else a composite of pieces. The caller writes it full and owns it.
   */
  public static ByteBuf allocate(ByteBufAllocator allocator, int length) {
    if (length <= PIECE_BYTES) {
      return allocator.directBuffer(length, length);
    }
    CompositeByteBuf pieces = allocator.compositeDirectBuffer(length / PIECE_BYTES + 1);
    try {
      for (int left = length; left > 0; left -= PIECE_BYTES) {
        int size = Math.min(left, PIECE_BYTES);
        // A component spans its readable bytes: each piece is added "full" while the composite's
        // writer index stays at 0, so writes into the composite fill the pieces in order.
        pieces.addComponent(false, allocator.directBuffer(size, size).writerIndex(size));
      }
      return pieces;
    } catch (RuntimeException e) {
      pieces.release();
      throw e;
    }
  }
}
