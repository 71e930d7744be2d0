package io.picomq.s3stream.walobject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WalObjectCodecTest {

  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final long MIB_64 = 64L * 1024 * 1024;
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

  private static ByteBuf batch(long streamId, long base, String payload) {
    return RecordBatchCodec.encode(
        new RecordBatch(
            streamId, 1, base, 1, Unpooled.wrappedBuffer(payload.getBytes(StandardCharsets.UTF_8))),
        ALLOC);
  }

  private static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }

  @Test
  void writesTheV1HeaderLayout() {
    ByteBuf out = Unpooled.buffer();
    WalObjectCodec.writeHeader(new WalObjectHeader.V1(8192, 2000, 0, 4, 11, 4096), out);
    ByteBuf expected =
        Unpooled.buffer()
            .writeInt(0xEDCBA987)
            .writeLong(8192)
            .writeLong(2000)
            .writeLong(0)
            .writeInt(4)
            .writeLong(11)
            .writeLong(4096);
    assertThat(bytes(out)).hasSize(48).isEqualTo(bytes(expected));
  }

  @Test
  void writesTheV0HeaderLayoutWithoutTrimOffset() {
    ByteBuf out = Unpooled.buffer();
    WalObjectCodec.writeHeader(new WalObjectHeader.V0(4096, 1000, 0, 3, 9), out);
    ByteBuf expected =
        Unpooled.buffer()
            .writeInt(0x12345678)
            .writeLong(4096)
            .writeLong(1000)
            .writeLong(0)
            .writeInt(3)
            .writeLong(9);
    assertThat(bytes(out)).hasSize(40).isEqualTo(bytes(expected));
  }

  @Test
  void readsBothHeaderVersionsBack() {
    for (WalObjectHeader header :
        List.of(
            new WalObjectHeader.V0(1, 2, 0, -5, Long.MAX_VALUE),
            new WalObjectHeader.V1(
                7, 0, 3, Integer.MAX_VALUE, 1, WalObjectHeader.V1.NOT_TRIMMED))) {
      ByteBuf buf = Unpooled.buffer().writeZero(3);
      WalObjectCodec.writeHeader(header, buf);
      assertThat(WalObjectCodec.readHeader(buf, 3)).isEqualTo(header);
    }
  }

  @Test
  void rejectsAForeignMagic() {
    ByteBuf buf = Unpooled.buffer().writeInt(0x22000000).writeZero(60);
    assertThatThrownBy(() -> WalObjectCodec.readHeader(buf, 0))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC));
  }

  @Test
  void rejectsAHeaderCutShortForItsVersion() {
    ByteBuf v1 = Unpooled.buffer();
    WalObjectCodec.writeHeader(new WalObjectHeader.V1(0, 0, 0, 1, 1, -1), v1);
    for (int length : new int[] {0, 3, 4, 40, 47}) {
      assertThatThrownBy(() -> WalObjectCodec.readHeader(v1.slice(0, length), 0))
          .as("%d bytes", length)
          .isInstanceOfSatisfying(
              CorruptDataException.class,
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
    }
  }

  @Test
  void rejectsANegativeBodyLength() {
    ByteBuf buf = Unpooled.buffer();
    WalObjectCodec.writeHeader(new WalObjectHeader.V1(0, 0, 0, 1, 1, -1), buf);
    buf.setLong(12, -1);
    assertThatThrownBy(() -> WalObjectCodec.readHeader(buf, 0))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.BAD_LENGTH));
  }

  @Test
  void endOffsetRoundsUpTo64MiB() {
    assertThat(WalObjectCodec.endOffset(0, 267)).isEqualTo(MIB_64);
    assertThat(WalObjectCodec.endOffset(MIB_64, 57)).isEqualTo(2 * MIB_64);
    assertThat(WalObjectCodec.endOffset(0, MIB_64)).isEqualTo(MIB_64);
    assertThat(WalObjectCodec.endOffset(0, MIB_64 + 1)).isEqualTo(2 * MIB_64);
  }

  @Test
  void framesRecordsBackToBackFromTheStartOffset() {
    ByteBuf first = batch(1, 5, "aa");
    ByteBuf second = batch(1, 6, "bbbb");
    EncodedWalObject object =
        WalObjectCodec.encode(MIB_64, 3, 9, 100, List.of(first, second), ALLOC);
    try {
      int firstSize = 24 + first.readableBytes();
      int secondSize = 24 + second.readableBytes();
      assertThat(object.records())
          .containsExactly(
              new RecordPosition(MIB_64, firstSize),
              new RecordPosition(MIB_64 + firstSize, secondSize));
      assertThat(object.header())
          .isEqualTo(new WalObjectHeader.V1(MIB_64, firstSize + secondSize, 0, 3, 9, 100));
      assertThat(object.endOffset()).isEqualTo(2 * MIB_64);
      assertThat(object.bytes().readableBytes()).isEqualTo(48 + firstSize + secondSize);
      // The second record's header states its own WAL offset.
      assertThat(WalRecordCodec.readHeader(object.bytes(), 48 + firstSize).recordOffset())
          .isEqualTo(MIB_64 + firstSize);
      assertThat(first.readerIndex()).isZero();
    } finally {
      object.bytes().release();
      first.release();
      second.release();
    }
  }

  @Test
  void decodesWhatItEncoded() {
    ByteBuf first = batch(2, 0, "first");
    ByteBuf second = batch(2, 1, "second");
    EncodedWalObject object = WalObjectCodec.encode(0, 1, 3, -1, List.of(first, second), ALLOC);
    WalObjectContents contents = WalObjectCodec.decode(object.bytes());
    try {
      assertThat(contents.complete()).isTrue();
      assertThat(contents.header()).isEqualTo(object.header());
      assertThat(contents.records()).extracting(WalRecord::header).hasSize(2);
      assertThat(contents.records().get(0).body()).isEqualTo(first);
      assertThat(contents.records().get(1).body()).isEqualTo(second);
      assertThat(contents.records().get(1).header().recordOffset())
          .isEqualTo(object.records().get(1).offset());
    } finally {
      contents.release();
      object.bytes().release();
      first.release();
      second.release();
    }
  }

  @Test
  void stopsAtTheFirstDamagedRecordAndKeepsTheOnesBefore() {
    ByteBuf first = batch(2, 0, "first");
    ByteBuf second = batch(2, 1, "second");
    EncodedWalObject object = WalObjectCodec.encode(0, 1, 3, -1, List.of(first, second), ALLOC);
    ByteBuf copy = Unpooled.wrappedBuffer(bytes(object.bytes()));
    object.bytes().release();
    int lastByte = copy.writerIndex() - 1;
    copy.setByte(lastByte, copy.getByte(lastByte) ^ 0x40);
    WalObjectContents contents = WalObjectCodec.decode(copy);
    try {
      assertThat(contents.records()).hasSize(1);
      assertThat(contents.records().get(0).body()).isEqualTo(first);
      assertThat(contents.stoppedBy())
          .hasValueSatisfying(
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.BODY_CRC_MISMATCH));
    } finally {
      contents.release();
      first.release();
      second.release();
    }
  }

  @Test
  void aShortObjectEndsInATruncatedRecord() {
    ByteBuf body = batch(2, 0, "some payload");
    EncodedWalObject object = WalObjectCodec.encode(0, 1, 3, -1, List.of(body), ALLOC);
    ByteBuf cut = object.bytes().slice(0, object.bytes().readableBytes() - 1);
    WalObjectContents contents = WalObjectCodec.decode(cut);
    try {
      assertThat(contents.records()).isEmpty();
      assertThat(contents.stoppedBy())
          .hasValueSatisfying(
              e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
    } finally {
      object.bytes().release();
      body.release();
    }
  }

  @Test
  void aRecordAtAnOffsetOtherThanItsPositionIsInconsistent() {
    // A well-framed record copied from elsewhere: its CRCs pass but its offset is wrong here.
    ByteBuf body = batch(2, 0, "moved");
    ByteBuf record = WalRecordCodec.encodeData(999, body, ALLOC);
    ByteBuf object = Unpooled.buffer();
    WalObjectCodec.writeHeader(
        new WalObjectHeader.V1(0, record.readableBytes(), 0, 1, 1, -1), object);
    object.writeBytes(record);
    WalObjectContents contents = WalObjectCodec.decode(object);
    assertThat(contents.records()).isEmpty();
    assertThat(contents.stoppedBy())
        .hasValueSatisfying(
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.INCONSISTENT));
    record.release();
    body.release();
  }

  @Test
  void skipsPaddingRecords() {
    ByteBuf body = batch(2, 0, "after padding");
    ByteBuf object = Unpooled.buffer();
    ByteBuf records = Unpooled.buffer();
    WalRecordCodec.writePadding(0, 40, records);
    WalRecordCodec.writeData(40, body, records);
    WalObjectCodec.writeHeader(new WalObjectHeader.V0(0, records.readableBytes(), 0, 1, 1), object);
    object.writeBytes(records);
    WalObjectContents contents = WalObjectCodec.decode(object);
    try {
      assertThat(contents.complete()).isTrue();
      assertThat(contents.records())
          .singleElement()
          .satisfies(r -> assertThat(r.body()).isEqualTo(body));
    } finally {
      contents.release();
      body.release();
    }
  }

  @Test
  void refusesToEncodeAnEmptyObject() {
    assertThatThrownBy(() -> WalObjectCodec.encode(0, 1, 1, -1, List.of(), ALLOC))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void trimMarkerIsAnEmptyBatchOfStreamMinusOne() {
    ByteBuf marker = RecordBatchCodec.encode(TrimMarker.batch(), ALLOC);
    try {
      assertThat(marker.readableBytes()).isEqualTo(33);
      assertThat(TrimMarker.is(RecordBatchCodec.readHeader(marker, 0))).isTrue();
    } finally {
      marker.release();
    }
    ByteBuf ordinary = batch(-1, 0, "");
    try {
      // Stream -1 alone is not enough: the epoch must be -1 too.
      assertThat(TrimMarker.is(RecordBatchCodec.readHeader(ordinary, 0))).isFalse();
    } finally {
      ordinary.release();
    }
  }
}
