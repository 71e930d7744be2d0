package io.picomq.s3stream.walobject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.maps;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.CorruptDataException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

class RangeIndexCodecTest {

  private static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }

  private static CorruptDataException.Reason reasonOf(ByteBuf buf) {
    try {
      throw new AssertionError("decoded " + RangeIndexCodec.decode(buf));
    } catch (CorruptDataException e) {
      return e.reason();
    }
  }

  @Test
  void writesTheDocumentedLayoutInStreamIdOrder() {
    NodeRangeIndex index =
        new NodeRangeIndex(
            new TreeMap<>(
                Map.of(
                    9L, List.of(new RangeIndexEntry(5, 6, 7)),
                    2L,
                        List.of(
                            new RangeIndexEntry(0, 10, 100), new RangeIndexEntry(10, 20, 101)))));
    ByteBuf encoded = RangeIndexCodec.encode(index, UnpooledByteBufAllocator.DEFAULT);
    ByteBuf expected =
        Unpooled.buffer()
            .writeShort(0)
            .writeInt(2)
            .writeLong(2)
            .writeInt(2)
            .writeLong(0)
            .writeLong(10)
            .writeLong(100)
            .writeLong(10)
            .writeLong(20)
            .writeLong(101)
            .writeLong(9)
            .writeInt(1)
            .writeLong(5)
            .writeLong(6)
            .writeLong(7);
    assertThat(bytes(encoded)).isEqualTo(bytes(expected));
    assertThat(index.encodedSize()).isEqualTo(encoded.readableBytes());
    assertThat(RangeIndexCodec.decode(encoded)).isEqualTo(index);
    encoded.release();
  }

  @Test
  void anEmptyIndexIsSixBytes() {
    ByteBuf encoded =
        RangeIndexCodec.encode(
            new NodeRangeIndex(new TreeMap<>()), UnpooledByteBufAllocator.DEFAULT);
    assertThat(bytes(encoded)).containsExactly(0, 0, 0, 0, 0, 0);
    encoded.release();
  }

  @Test
  void rejectsAnotherVersion() {
    ByteBuf buf = Unpooled.buffer().writeShort(1).writeInt(0);
    assertThat(reasonOf(buf)).isEqualTo(CorruptDataException.Reason.UNKNOWN_VERSION);
  }

  @Test
  void rejectsCountsThatRunPastTheBytes() {
    assertThat(reasonOf(Unpooled.buffer().writeShort(0).writeInt(1)))
        .isEqualTo(CorruptDataException.Reason.TRUNCATED);
    assertThat(reasonOf(Unpooled.buffer().writeShort(0).writeInt(1).writeLong(1).writeInt(1 << 30)))
        .isEqualTo(CorruptDataException.Reason.TRUNCATED);
    assertThat(reasonOf(Unpooled.buffer().writeShort(0)))
        .isEqualTo(CorruptDataException.Reason.TRUNCATED);
  }

  @Test
  void rejectsNegativeCounts() {
    assertThat(reasonOf(Unpooled.buffer().writeShort(0).writeInt(-1)))
        .isEqualTo(CorruptDataException.Reason.BAD_LENGTH);
  }

  @Test
  void rejectsAStreamListedTwiceAndTrailingBytes() {
    ByteBuf twice = Unpooled.buffer().writeShort(0).writeInt(2);
    for (int i = 0; i < 2; i++) {
      twice.writeLong(4).writeInt(1).writeLong(0).writeLong(1).writeLong(2);
    }
    assertThat(reasonOf(twice)).isEqualTo(CorruptDataException.Reason.INCONSISTENT);
    assertThat(reasonOf(Unpooled.buffer().writeShort(0).writeInt(0).writeByte(0)))
        .isEqualTo(CorruptDataException.Reason.INCONSISTENT);
  }

  @Test
  void dropsAStreamWithNoEntriesAsTheUpstreamDoes() {
    ByteBuf buf = Unpooled.buffer().writeShort(0).writeInt(1).writeLong(4).writeInt(0);
    assertThat(RangeIndexCodec.decode(buf).streams()).isEmpty();
  }

  @Test
  void refusesAStreamWithoutEntries() {
    assertThatThrownBy(() -> new NodeRangeIndex(new TreeMap<>(Map.of(1L, List.of()))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keyHashesTheNodeWithAMixedInWord() {
    // "sparse-index0".hashCode() == 0x52674deb, and ids that differ in the last digit differ by
    // one.
    assertThat(RangeIndexCodec.objectKey("DEFAULT", 0)).isEqualTo("52674deb/DEFAULT/node-0");
    assertThat(RangeIndexCodec.objectKey("DEFAULT", 1)).isEqualTo("52674dec/DEFAULT/node-1");
    assertThat(RangeIndexCodec.objectKey("ns", 1)).endsWith("/ns/node-1");
  }

  /** Up to 8 streams of 1 to 5 entries each, with any ids and values. */
  private static Gen<NodeRangeIndex> indexes() {
    Gen<RangeIndexEntry> entry =
        longs().all().zip(longs().all(), longs().all(), RangeIndexEntry::new);
    return maps()
        .of(longs().all(), lists().of(entry).ofSizeBetween(1, 5))
        .ofSizeBetween(0, 8)
        .map(streams -> new NodeRangeIndex(new TreeMap<>(streams)));
  }

  @Test
  void roundTrips() {
    qt().withExamples(1000)
        .forAll(indexes())
        .checkAssert(
            index -> {
              ByteBuf encoded = RangeIndexCodec.encode(index, UnpooledByteBufAllocator.DEFAULT);
              try {
                assertThat(RangeIndexCodec.decode(encoded)).isEqualTo(index);
                assertThat(encoded.readerIndex()).isZero();
              } finally {
                encoded.release();
              }
            });
  }
}
