package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * What the WAL framing promises recovery: any single changed byte and any cut is reported, never
 * returned as data. A failing property is rerun from its seed as {@link RecordBatchPropertyTest}
 * describes.
 */
class WalRecordPropertyTest {

  /** A framed data record whose body is an encoded record batch, as the WAL writes it. */
  record Framed(long recordOffset, byte[] bytes) {
    @Override
    public String toString() {
      return "Framed[recordOffset=" + recordOffset + ", bytes=" + Arrays.toString(bytes) + "]";
    }
  }

  static Gen<Framed> framedRecords() {
    return longs()
        .between(0, Long.MAX_VALUE / 2)
        .zip(
            RecordBatchPropertyTest.batches(),
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

  @Test
  void framedBatchesRoundTrip() {
    qt().withExamples(1000)
        .forAll(framedRecords())
        .checkAssert(
            framed -> {
              WalRecord.Data data =
                  (WalRecord.Data) WalRecordCodec.decode(Unpooled.wrappedBuffer(framed.bytes()));
              RecordBatch batch = RecordBatchCodec.decode(data.body());
              assertThat(data.header().recordOffset()).isEqualTo(framed.recordOffset());
              assertThat(batch.encodedSize())
                  .isEqualTo(framed.bytes().length - WalRecordHeader.SIZE);
              batch.release();
              data.body().release();
            });
  }

  @Test
  void anySingleByteChangeIsDetected() {
    qt().withExamples(1000)
        .forAll(
            framedRecords(), integers().between(0, Integer.MAX_VALUE), integers().between(1, 255))
        .checkAssert(
            (framed, position, xor) -> {
              byte[] bytes = framed.bytes().clone();
              int at = position % bytes.length;
              bytes[at] ^= xor.byteValue();
              assertThatThrownBy(() -> WalRecordCodec.decode(Unpooled.wrappedBuffer(bytes)))
                  .as("byte %d of %d xor 0x%02x", at, bytes.length, xor)
                  .isInstanceOf(CorruptDataException.class);
            });
  }

  @Test
  void anyTruncationIsReportedAsTruncated() {
    qt().withExamples(1000)
        .forAll(framedRecords(), integers().between(0, Integer.MAX_VALUE))
        .checkAssert(
            (framed, cut) -> {
              int length = cut % framed.bytes().length;
              assertThatThrownBy(
                      () ->
                          WalRecordCodec.decode(Unpooled.wrappedBuffer(framed.bytes(), 0, length)))
                  .isInstanceOfSatisfying(
                      CorruptDataException.class,
                      e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
            });
  }

  @Test
  void everyChangeOfEveryByteOfASmallRecordIsDetected() {
    qt().withExamples(50)
        .forAll(RecordBatchPropertyTest.bytes(40), longs().all())
        .checkAssert(
            (payload, offset) -> {
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
            });
  }

  @Test
  void arbitraryBytesNeverEscapeAsAnotherException() {
    qt().withExamples(1000)
        .forAll(RecordBatchPropertyTest.bytes(64))
        .checkAssert(
            bytes -> {
              ByteBuf buf = Unpooled.wrappedBuffer(bytes);
              try {
                WalRecord record = WalRecordCodec.decode(buf);
                if (record instanceof WalRecord.Data data) {
                  data.body().release();
                }
              } catch (CorruptDataException expected) {
                assertThat(buf.readerIndex()).isZero();
              }
            });
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
