package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingDeque;

/**
 * The buffers a store's GETs fill: direct memory, in pieces of {@link #PIECE_BYTES} that are reused
 * once released.
 *
 * <p>Why: readahead GETs of up to 8 MiB, whose pages the block cache then keeps for a while.
 * Netty's allocator recycles buffers up to about 1 MiB only while they come back quickly; for the
 * block cache's long-lived pages, and for anything larger, it hands out fresh native memory, which
 * the JDK zeroes and the kernel maps page by page: on a cold replay of 1 GiB from {@code file://}
 * that was half of the profile. Pieces released here (pages evicted, reads done) go to a bounded
 * free list and back into the next GET. Why direct: a channel reads straight into it, where a heap
 * buffer made the JDK read into a temporary native buffer and copy it over; and a heap array of 1
 * MiB or more is a humongous object for G1.
 *
 * <p>Pieces are not tracked by Netty's leak detector, whether handed out alone (a GET of exactly 1
 * MiB) or inside a composite; the composite, from the store's allocator, is.
 */
public final class ReadBuffers {

  /** The size of a piece. */
  public static final int PIECE_BYTES = 1 << 20;

  /** Released pieces kept for reuse at most: 64 MiB, less than the default block cache. */
  static final int MAX_IDLE_PIECES = 64;

  private final ByteBufAllocator allocator;
  // Last in, first out: the piece released last is the likeliest to be in the CPU's caches.
  private final LinkedBlockingDeque<ByteBuffer> idle = new LinkedBlockingDeque<>(MAX_IDLE_PIECES);

  /**
   * @param allocator allocates buffers smaller than a piece, and the composites holding pieces
   */
  public ReadBuffers(ByteBufAllocator allocator) {
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /**
   * A buffer with room for exactly {@code length} bytes, none written yet: one buffer up to {@link
   * #PIECE_BYTES}, else a composite of pieces. The caller writes it full, owns it and releases it.
   */
  public ByteBuf allocate(int length) {
    if (length <= PIECE_BYTES) {
      return length == PIECE_BYTES ? piece() : allocator.directBuffer(length, length);
    }
    CompositeByteBuf pieces = allocator.compositeDirectBuffer(length / PIECE_BYTES + 1);
    try {
      for (int left = length; left > 0; left -= PIECE_BYTES) {
        ByteBuf piece = left >= PIECE_BYTES ? piece() : allocator.directBuffer(left, left);
        // A component spans its readable bytes: each piece is added "full" while the composite's
        // writer index stays at 0, so writes into the composite fill the pieces in order.
        pieces.addComponent(false, piece.writerIndex(piece.capacity()));
      }
      return pieces;
    } catch (RuntimeException e) {
      pieces.release();
      throw e;
    }
  }

  /** Released pieces waiting for reuse. */
  int idlePieces() {
    return idle.size();
  }

  private ByteBuf piece() {
    ByteBuffer memory = idle.pollFirst();
    return new Piece(memory != null ? memory.clear() : ByteBuffer.allocateDirect(PIECE_BYTES));
  }

  /** A buffer over a piece of memory that goes back to the free list when released. */
  private final class Piece extends UnpooledDirectByteBuf {
    private final ByteBuffer memory;

    Piece(ByteBuffer memory) {
      super(allocator, memory, PIECE_BYTES); // wraps the memory without taking it over
      this.memory = memory;
      writerIndex(0);
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      idle.offerFirst(
          memory); // dropped when the list is full: the JDK frees it with the ByteBuffer
    }
  }
}
