package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WalRecordCodecTest {

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

  private static ByteBuf text(String s) {
    return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
  }

  private static CorruptDataException.Reason reasonOf(ByteBuf buf) {
    try {
      WalRecord record = WalRecordCodec.decode(buf);
      if (record instanceof WalRecord.Data data) {
        data.body().release();
      }
      throw new AssertionError("decoded " + record);
    } catch (CorruptDataException e) {
      return e.reason();
    }
  }

  @Test
  void writesTheDocumentedHeader() {
    ByteBuf body = text("hello");
    ByteBuf record = WalRecordCodec.encodeData(1000, body, ALLOC);
    try {
      assertThat(record.readableBytes()).isEqualTo(24 + 5);
      assertThat(record.getInt(0)).isEqualTo(0x87654321);
      assertThat(record.getInt(4)).isEqualTo(5);
      assertThat(record.getLong(8)).isEqualTo(1024);
      assertThat(record.getInt(16)).isEqualTo(Crc32.of(body));
      assertThat(record.getInt(20)).isEqualTo(Crc32.of(record, 0, 20));
      assertThat(record.slice(24, 5)).isEqualTo(body);
      assertThat(body.readerIndex()).isZero();
    } finally {
      record.release();
    }
  }

  @Test
  void roundTripsADataRecord() {
    ByteBuf record = WalRecordCodec.encodeData(4096, text("body bytes"), ALLOC);
    try {
      WalRecord decoded = WalRecordCodec.decode(record);
      assertThat(decoded).isInstanceOf(WalRecord.Data.class);
      WalRecord.Data data = (WalRecord.Data) decoded;
      try {
        assertThat(data.body().toString(StandardCharsets.UTF_8)).isEqualTo("body bytes");
        assertThat(data.header().recordOffset()).isEqualTo(4096);
        assertThat(data.header().nextOffset()).isEqualTo(4096 + 24 + 10);
        assertThat(data.header().recordSize()).isEqualTo(34);
        assertThat(record.isReadable()).isFalse();
      } finally {
        data.body().release();
      }
    } finally {
      record.release();
    }
  }

  @Test
  void headerOnlyEncodingMatchesTheFullRecordPrefix() {
    ByteBuf body = text("zero copy");
    ByteBuf full = WalRecordCodec.encodeData(77, body, ALLOC);
    ByteBuf header = WalRecordCodec.encodeDataHeader(77, body, ALLOC);
    try {
      assertThat(header).isEqualTo(full.slice(0, 24));
    } finally {
      full.release();
      header.release();
    }
  }

  @Test
  void roundTripsAPaddingRecordWithoutCheckingItsBody() {
    ByteBuf record = WalRecordCodec.encodePadding(8192, 64, ALLOC);
    try {
      assertThat(record.readableBytes()).isEqualTo(64);
      assertThat(record.getInt(0)).isEqualTo(0x76543210);
      assertThat(record.getInt(16)).isZero();
      WalRecord decoded = WalRecordCodec.decode(record);
      assertThat(decoded)
          .isEqualTo(
              new WalRecord.Padding(new WalRecordHeader(WalRecordType.PADDING, 40, 8192 + 24, 0)));
      assertThat(record.isReadable()).isFalse();
    } finally {
      record.release();
    }
  }

  @Test
  void paddingMustHoldAtLeastAHeader() {
    assertThatThrownBy(() -> WalRecordCodec.encodePadding(0, 23, ALLOC))
        .isInstanceOf(IllegalArgumentException.class);
    ByteBuf minimal = WalRecordCodec.encodePadding(0, 24, ALLOC);
    try {
      assertThat(WalRecordCodec.readHeader(minimal, 0).bodyLength()).isZero();
    } finally {
      minimal.release();
    }
  }

  @Test
  void detectsABodyFlip() {
    ByteBuf record = WalRecordCodec.encodeData(0, text("abcdef"), ALLOC);
    try {
      record.setByte(26, record.getByte(26) ^ 0x01);
      assertThat(reasonOf(record)).isEqualTo(CorruptDataException.Reason.BODY_CRC_MISMATCH);
      assertThat(record.readerIndex()).isZero();
    } finally {
      record.release();
    }
  }

  @Test
  void detectsAHeaderFlipBeforeTrustingTheLength() {
    ByteBuf record = WalRecordCodec.encodeData(0, text("abcdef"), ALLOC);
    try {
      record.setInt(4, 1 << 20);
      assertThat(reasonOf(record)).isEqualTo(CorruptDataException.Reason.HEADER_CRC_MISMATCH);
    } finally {
      record.release();
    }
  }

  @Test
  void rejectsUnknownMagic() {
    ByteBuf record = WalRecordCodec.encodeData(0, text("abc"), ALLOC);
    try {
      record.setInt(0, 0x12345678);
      assertThat(reasonOf(record)).isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC);
    } finally {
      record.release();
    }
  }

  @Test
  void rejectsABodyLengthOutsideASignedInt() {
    // A header with a valid CRC can still announce 2^31 or more bytes; the upstream never writes
    // it.
    ByteBuf record = Unpooled.buffer();
    record.writeInt(0x87654321).writeInt(0x80000000).writeLong(24).writeInt(0);
    record.writeInt(Crc32.of(record, 0, 20));
    assertThat(reasonOf(record)).isEqualTo(CorruptDataException.Reason.BAD_LENGTH);
  }

  @Test
  void rejectsEveryTruncation() {
    ByteBuf full = WalRecordCodec.encodeData(0, text("truncate me"), ALLOC);
    try {
      for (int length = 0; length < full.readableBytes(); length++) {
        assertThat(reasonOf(full.slice(0, length)))
            .as("cut to %d bytes", length)
            .isEqualTo(CorruptDataException.Reason.TRUNCATED);
      }
    } finally {
      full.release();
    }
  }

  @Test
  void readHeaderDoesNotNeedTheBody() {
    ByteBuf full = WalRecordCodec.encodeData(10, text("not fetched yet"), ALLOC);
    try {
      WalRecordHeader header = WalRecordCodec.readHeader(full.slice(0, 24), 0);
      assertThat(header.bodyLength()).isEqualTo(15);
      assertThat(header.recordOffset()).isEqualTo(10);
    } finally {
      full.release();
    }
  }
}
