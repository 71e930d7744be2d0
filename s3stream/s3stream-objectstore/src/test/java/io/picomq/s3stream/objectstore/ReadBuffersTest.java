package io.picomq.s3stream.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReadBuffersTest {

  private static final int PIECE = ReadBuffers.PIECE_BYTES;

  /** Counts what it allocates; pieces are not its to allocate. */
  private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);

  private final ReadBuffers buffers = new ReadBuffers(allocator);

  private static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  @Test
  void aBufferHoldsExactlyTheBytesWrittenInto() {
    for (int length : new int[] {0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 17}) {
      byte[] data = random(length, length);
      ByteBuf buf = buffers.allocate(length);
      try {
        assertThat(buf.isDirect()).isTrue();
        assertThat(buf.writableBytes()).as("room for %d bytes", length).isEqualTo(length);
        buf.writeBytes(data);
        assertThat(buf.isWritable()).isFalse();
        assertThat(ByteBufUtil.getBytes(buf)).isEqualTo(data);
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void releasedPiecesServeTheNextBuffers() {
    ByteBuf first = buffers.allocate(3 * PIECE + 5);
    assertThat(buffers.idlePieces()).isZero();
    first.release();
    assertThat(buffers.idlePieces())
        .as("three whole pieces back, the 5-byte tail is not one")
        .isEqualTo(3);

    ByteBuf second = buffers.allocate(2 * PIECE);
    assertThat(buffers.idlePieces()).isEqualTo(1);
    byte[] data = random(2 * PIECE, 9);
    second.writeBytes(data);
    assertThat(ByteBufUtil.getBytes(second)).as("reused memory, new content").isEqualTo(data);
    second.release();
    assertThat(buffers.idlePieces()).isEqualTo(3);
  }

  @Test
  void theFreeListIsBounded() {
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < ReadBuffers.MAX_IDLE_PIECES + 10; i++) {
      held.add(buffers.allocate(PIECE));
    }
    held.forEach(ByteBuf::release);
    assertThat(buffers.idlePieces()).isEqualTo(ReadBuffers.MAX_IDLE_PIECES);
  }

  @Test
  void smallBuffersAndCompositesComeFromTheAllocator() {
    ByteBuf small = buffers.allocate(100);
    ByteBuf large = buffers.allocate(PIECE + 100);
    assertThat(allocator.metric().usedDirectMemory())
        .as("the small buffer and the tail piece")
        .isEqualTo(200);
    small.release();
    large.release();
    assertThat(allocator.metric().usedDirectMemory()).isZero();
  }
}
