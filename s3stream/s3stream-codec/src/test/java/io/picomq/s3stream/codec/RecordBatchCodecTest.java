package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RecordBatchCodecTest {

  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static ResourceLeakDetector.Level previousLevel;

  @BeforeAll
  static void paranoidLeakDetection() {
    previousLevel = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @AfterAll
  static void restoreLeakDetection() {
    ResourceLeakDetector.setLevel(previousLevel);
  }

  private static RecordBatch batch(long streamId, long epoch, long base, int count, String text) {
    return new RecordBatch(
        streamId,
        epoch,
        base,
        count,
        Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }

  @Test
  void encodesTheDocumentedLayout() {
    RecordBatch batch = batch(0x0102030405060708L, 9, 10, 3, "abc");
    ByteBuf encoded = RecordBatchCodec.encode(batch, ALLOC);
    try {
      // magic, streamId, epoch, baseOffset, count, payloadLength, payload
      ByteBuf expected =
          Unpooled.buffer()
              .writeByte(0x22)
              .writeLong(0x0102030405060708L)
              .writeLong(9)
              .writeLong(10)
              .writeInt(3)
              .writeInt(3)
              .writeBytes(new byte[] {'a', 'b', 'c'});
      assertThat(bytes(encoded)).isEqualTo(bytes(expected));
      assertThat(encoded.readableBytes()).isEqualTo(batch.encodedSize()).isEqualTo(33 + 3);
    } finally {
      encoded.release();
    }
  }

  @Test
  void roundTripsAndAdvancesTheReaderIndexPastOneBatch() {
    RecordBatch first = batch(1, 2, 3, 2, "hello");
    RecordBatch second = batch(1, 2, 5, -4, "");
    ByteBuf buf = ALLOC.buffer();
    try {
      RecordBatchCodec.encodeTo(first, buf);
      RecordBatchCodec.encodeTo(second, buf);
      RecordBatch decodedFirst = RecordBatchCodec.decode(buf);
      RecordBatch decodedSecond = RecordBatchCodec.decode(buf);
      try {
        assertThat(decodedFirst).isEqualTo(first);
        assertThat(decodedSecond).isEqualTo(second);
        assertThat(buf.isReadable()).isFalse();
      } finally {
        decodedFirst.release();
        decodedSecond.release();
      }
    } finally {
      buf.release();
    }
  }

  @Test
  void decodedPayloadOutlivesTheSourceBuffer() {
    ByteBuf encoded = RecordBatchCodec.encode(batch(7, 1, 0, 1, "kept"), ALLOC);
    RecordBatch decoded = RecordBatchCodec.decode(encoded);
    encoded.release();
    try {
      assertThat(decoded.payload().toString(StandardCharsets.UTF_8)).isEqualTo("kept");
      assertThat(decoded.payload().refCnt()).isPositive();
    } finally {
      decoded.release();
    }
    assertThat(decoded.payload().refCnt()).isZero();
  }

  @Test
  void encodeLeavesThePayloadReaderIndexAlone() {
    ByteBuf payload = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4});
    payload.readByte();
    RecordBatch batch = new RecordBatch(1, 1, 0, 1, payload);
    ByteBuf encoded = RecordBatchCodec.encode(batch, ALLOC);
    try {
      assertThat(payload.readerIndex()).isEqualTo(1);
      assertThat(RecordBatchCodec.readHeader(encoded, 0).payloadLength()).isEqualTo(3);
    } finally {
      encoded.release();
    }
  }

  @Test
  void readHeaderInspectsABatchInPlace() {
    ByteBuf buf = Unpooled.buffer().writeZero(5);
    RecordBatchCodec.encodeTo(batch(11, 12, 100, 4, "xyz"), buf);
    RecordBatchHeader header = RecordBatchCodec.readHeader(buf, 5);
    assertThat(header).isEqualTo(new RecordBatchHeader(11, 12, 100, 4, 3));
    assertThat(header.lastOffset()).isEqualTo(104);
    assertThat(header.encodedSize()).isEqualTo(36);
    assertThat(buf.readerIndex()).isZero();
  }

  @Test
  void lastOffsetCountsLinkRecordsByMagnitude() {
    assertThat(batch(1, 1, 1000, -8, "").lastOffset()).isEqualTo(1008);
    assertThat(batch(1, 1, 1000, -8, "").isLink()).isTrue();
    assertThat(batch(1, 1, 1000, 8, "").isLink()).isFalse();
    assertThat(batch(1, 1, 1000, 0, "").lastOffset()).isEqualTo(1000);
    assertThat(batch(1, 1, 0, Integer.MIN_VALUE, "").lastOffset()).isEqualTo(1L << 31);
  }

  @Test
  void lastOffsetWrapsLikeJavaLongArithmetic() {
    // The upstream's max_values vector pins this wrapped value.
    assertThat(batch(1, 1, Long.MAX_VALUE, Integer.MAX_VALUE, "").lastOffset())
        .isEqualTo(-9223372034707292162L);
  }

  @Test
  void rejectsAnUnknownMagic() {
    ByteBuf buf = RecordBatchCodec.encode(batch(1, 1, 0, 1, "p"), ALLOC);
    try {
      buf.setByte(0, 0x21);
      assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
          .isInstanceOfSatisfying(
              CorruptDataException.class,
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC));
      assertThat(buf.readerIndex()).isZero();
    } finally {
      buf.release();
    }
  }

  @Test
  void rejectsANegativePayloadLength() {
    ByteBuf buf = RecordBatchCodec.encode(batch(1, 1, 0, 1, "p"), ALLOC);
    try {
      buf.setInt(29, -1);
      assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
          .isInstanceOfSatisfying(
              CorruptDataException.class,
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.BAD_LENGTH));
    } finally {
      buf.release();
    }
  }

  @Test
  void rejectsEveryTruncation() {
    ByteBuf full = RecordBatchCodec.encode(batch(1, 1, 0, 1, "payload"), ALLOC);
    try {
      for (int length = 0; length < full.readableBytes(); length++) {
        ByteBuf cut = full.slice(0, length);
        assertThatThrownBy(() -> RecordBatchCodec.decode(cut))
            .as("cut to %d bytes", length)
            .isInstanceOfSatisfying(
                CorruptDataException.class,
                e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
        assertThat(cut.readerIndex()).isZero();
      }
    } finally {
      full.release();
    }
  }

  @Test
  void rejectsALengthThatWouldOverflowAnInt() {
    ByteBuf buf = RecordBatchCodec.encode(batch(1, 1, 0, 1, "p"), ALLOC);
    try {
      buf.setInt(29, Integer.MAX_VALUE);
      assertThatThrownBy(() -> RecordBatchCodec.readHeader(buf, 0))
          .isInstanceOfSatisfying(
              CorruptDataException.class,
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
    } finally {
      buf.release();
    }
  }

  @Test
  void readHeaderRefusesAnIndexBeforeTheReaderIndex() {
    ByteBuf buf = Unpooled.buffer().writeZero(40).readerIndex(4);
    assertThatThrownBy(() -> RecordBatchCodec.readHeader(buf, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reader index 4");
  }

  @Test
  void readHeaderPastTheEndIsTruncationNotABoundsError() {
    ByteBuf buf = Unpooled.buffer().writeZero(10);
    assertThatThrownBy(() -> RecordBatchCodec.readHeader(buf, 50))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
  }

  // ---- decode(buf, count): the same batches, read faster ----

  private static final List<RecordBatch> THREE =
      List.of(batch(4, 1, 0, 2, "first"), batch(4, 1, 2, 1, ""), batch(4, 2, 3, -5, "third!"));

  private static ByteBuf encodeAll(List<RecordBatch> batches, ByteBuf out) {
    batches.forEach(b -> RecordBatchCodec.encodeTo(b, out));
    return out;
  }

  /** The same bytes spread over components of {@code pieceBytes}, so that headers straddle them. */
  private static ByteBuf inPieces(ByteBuf whole, int pieceBytes) {
    CompositeByteBuf pieces = ALLOC.compositeBuffer(Integer.MAX_VALUE);
    for (int at = 0; at < whole.readableBytes(); at += pieceBytes) {
      int size = Math.min(pieceBytes, whole.readableBytes() - at);
      pieces.addComponent(true, ALLOC.directBuffer(size).writeBytes(whole, at, size));
    }
    return pieces;
  }

  @Test
  void decodesConsecutiveBatchesFromOneRegionOrFromPieces() {
    ByteBuf heap = encodeAll(THREE, ALLOC.heapBuffer());
    ByteBuf direct = encodeAll(THREE, ALLOC.directBuffer());
    List<ByteBuf> sources = new ArrayList<>(List.of(heap, direct));
    for (int piece : new int[] {1, 7, 33, 40}) {
      sources.add(inPieces(heap, piece));
    }
    try {
      for (ByteBuf source : sources) {
        List<RecordBatch> decoded = RecordBatchCodec.decode(source, 3);
        try {
          assertThat(decoded).as("from %s", source).isEqualTo(THREE);
          assertThat(source.isReadable()).isFalse();
        } finally {
          decoded.forEach(RecordBatch::release);
        }
      }
    } finally {
      sources.forEach(ByteBuf::release);
    }
  }

  @Test
  void decodingFewerBatchesThanTheBufferHoldsStopsAfterThem() {
    ByteBuf source = encodeAll(THREE, ALLOC.directBuffer());
    try {
      List<RecordBatch> decoded = RecordBatchCodec.decode(source, 2);
      try {
        assertThat(decoded).isEqualTo(THREE.subList(0, 2));
        RecordBatch last = RecordBatchCodec.decode(source);
        assertThat(last).isEqualTo(THREE.get(2));
        last.release();
      } finally {
        decoded.forEach(RecordBatch::release);
      }
    } finally {
      source.release();
    }
  }

  @Test
  void aTruncationAnywhereFailsTheWholeDecodeAndRetainsNothing() {
    ByteBuf whole = encodeAll(THREE, ALLOC.directBuffer());
    try {
      for (int length = 0; length < whole.readableBytes(); length++) {
        for (ByteBuf cut :
            List.of(whole.retainedSlice(0, length), inPieces(whole.slice(0, length), 7))) {
          try {
            assertThatThrownBy(() -> RecordBatchCodec.decode(cut, 3))
                .as("cut to %d bytes", length)
                .isInstanceOfSatisfying(
                    CorruptDataException.class,
                    e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
            assertThat(cut.readerIndex()).isZero();
          } finally {
            cut.release();
          }
        }
      }
      assertThat(whole.refCnt()).as("every decoded payload was released").isEqualTo(1);
    } finally {
      whole.release();
    }
  }

  @Test
  void aBadBatchAfterGoodOnesFailsTheWholeDecode() {
    ByteBuf source = encodeAll(THREE, ALLOC.directBuffer());
    try {
      int third = THREE.get(0).encodedSize() + THREE.get(1).encodedSize();
      source.setByte(third, 0x7f);
      assertThatThrownBy(() -> RecordBatchCodec.decode(source, 3))
          .isInstanceOfSatisfying(
              CorruptDataException.class,
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC));
      assertThat(source.readerIndex()).isZero();
      assertThat(source.refCnt()).isEqualTo(1);
    } finally {
      source.release();
    }
  }
}
