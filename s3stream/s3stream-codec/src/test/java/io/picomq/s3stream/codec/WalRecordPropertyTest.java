package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * What the WAL framing promises recovery: any single changed byte and any cut is reported, never
 * returned as data.
 */
class WalRecordPropertyTest {

  /** A framed data record whose body is an encoded record batch, as the WAL writes it. */
  record Framed(long recordOffset, byte[] bytes) {}

  @Provide
  Arbitrary<Framed> framedRecords() {
    return Combinators.combine(
            Arbitraries.longs().between(0, Long.MAX_VALUE / 2), RecordBatchPropertyTest.batches())
        .as(
            (offset, batch) -> {
              ByteBuf body = RecordBatchCodec.encode(batch, Unpooled.buffer().alloc());
              try {
                ByteBuf record = WalRecordCodec.encodeData(offset, body, Unpooled.buffer().alloc());
                byte[] bytes = new byte[record.readableBytes()];
                record.readBytes(bytes);
                record.release();
                return new Framed(offset, bytes);
              } finally {
                body.release();
              }
            });
  }

  @Property
  void framedBatchesRoundTrip(@ForAll("framedRecords") Framed framed) {
    WalRecord.Data data =
        (WalRecord.Data) WalRecordCodec.decode(Unpooled.wrappedBuffer(framed.bytes()));
    RecordBatch batch = RecordBatchCodec.decode(data.body());
    assertThat(data.header().recordOffset()).isEqualTo(framed.recordOffset());
    assertThat(batch.encodedSize()).isEqualTo(framed.bytes().length - WalRecordHeader.SIZE);
    batch.release();
    data.body().release();
  }

  @Property
  void anySingleByteChangeIsDetected(
      @ForAll("framedRecords") Framed framed,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int position,
      @ForAll @IntRange(min = 1, max = 255) int xor) {
    byte[] bytes = framed.bytes().clone();
    int at = position % bytes.length;
    bytes[at] ^= (byte) xor;
    assertThatThrownBy(() -> WalRecordCodec.decode(Unpooled.wrappedBuffer(bytes)))
        .as("byte %d of %d xor 0x%02x", at, bytes.length, xor)
        .isInstanceOf(CorruptDataException.class);
  }

  @Property
  void anyTruncationIsReportedAsTruncated(
      @ForAll("framedRecords") Framed framed,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int cut) {
    int length = cut % framed.bytes().length;
    assertThatThrownBy(
            () -> WalRecordCodec.decode(Unpooled.wrappedBuffer(framed.bytes(), 0, length)))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
  }

  @Property(tries = 50)
  void everyChangeOfEveryByteOfASmallRecordIsDetected(
      @ForAll @Size(max = 40) byte[] payload, @ForAll long offset) {
    byte[] original = frame(offset, payload);
    for (int at = 0; at < original.length; at++) {
      for (int xor = 1; xor < 256; xor++) {
        byte[] bytes = original.clone();
        bytes[at] ^= (byte) xor;
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        int where = at;
        int how = xor;
        assertThatThrownBy(() -> WalRecordCodec.decode(buf))
            .as("byte %d xor 0x%02x", where, how)
            .isInstanceOf(CorruptDataException.class);
      }
    }
  }

  @Property
  void arbitraryBytesNeverEscapeAsAnotherException(@ForAll @Size(max = 64) byte[] bytes) {
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    try {
      WalRecord record = WalRecordCodec.decode(buf);
      if (record instanceof WalRecord.Data data) {
        data.body().release();
      }
    } catch (CorruptDataException expected) {
      assertThat(buf.readerIndex()).isZero();
    }
  }

  private static byte[] frame(long offset, byte[] payload) {
    ByteBuf record =
        WalRecordCodec.encodeData(
            offset, Unpooled.wrappedBuffer(payload), Unpooled.buffer().alloc());
    byte[] bytes = new byte[record.readableBytes()];
    record.readBytes(bytes);
    record.release();
    return bytes;
  }
}
