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
 * What the record batch format alone guarantees. It has no checksum, so the promise under damage is
 * weaker than the WAL framing's: a changed byte is either rejected or decodes to a batch that is
 * not equal to the original (the encoding is injective), and nothing but {@link
 * CorruptDataException} ever escapes the decoder. Detection of every damaged byte is the WAL
 * record's job ({@link WalRecordPropertyTest}).
 */
class RecordBatchPropertyTest {

  static Arbitrary<RecordBatch> batches() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.integers(),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(2048))
        .as(
            (streamId, epoch, base, count, payload) ->
                new RecordBatch(streamId, epoch, base, count, Unpooled.wrappedBuffer(payload)));
  }

  @Provide("batches")
  Arbitrary<RecordBatch> provideBatches() {
    return batches();
  }

  private static byte[] encode(RecordBatch batch) {
    ByteBuf encoded = RecordBatchCodec.encode(batch, Unpooled.buffer().alloc());
    byte[] bytes = new byte[encoded.readableBytes()];
    encoded.readBytes(bytes);
    encoded.release();
    return bytes;
  }

  @Property
  void roundTrips(@ForAll("batches") RecordBatch batch) {
    byte[] bytes = encode(batch);
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    RecordBatch decoded = RecordBatchCodec.decode(buf);
    assertThat(decoded).isEqualTo(batch);
    assertThat(decoded.lastOffset()).isEqualTo(batch.lastOffset());
    assertThat(buf.isReadable()).isFalse();
    assertThat(RecordBatchCodec.readHeader(Unpooled.wrappedBuffer(bytes), 0).encodedSize())
        .isEqualTo(bytes.length);
    decoded.release();
  }

  @Property
  void aChangedByteIsRejectedOrDecodesToADifferentBatch(
      @ForAll("batches") RecordBatch batch,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int position,
      @ForAll @IntRange(min = 1, max = 255) int xor) {
    byte[] bytes = encode(batch);
    int at = position % bytes.length;
    bytes[at] ^= (byte) xor;
    try {
      RecordBatch decoded = RecordBatchCodec.decode(Unpooled.wrappedBuffer(bytes));
      assertThat(decoded).isNotEqualTo(batch);
    } catch (CorruptDataException rejected) {
      // The magic byte, and a payload length pushed past the end or below zero, are caught here.
      assertThat(at == 0 || (at >= 29 && at < 33)).as("rejected byte %d", at).isTrue();
    }
  }

  @Property
  void aChangedMagicIsAlwaysRejected(
      @ForAll("batches") RecordBatch batch, @ForAll @IntRange(min = 1, max = 255) int xor) {
    byte[] bytes = encode(batch);
    bytes[0] ^= (byte) xor;
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC));
  }

  @Property
  void anyTruncationIsRejected(
      @ForAll("batches") RecordBatch batch,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int cut) {
    byte[] bytes = encode(batch);
    int length = cut % bytes.length;
    ByteBuf buf = Unpooled.wrappedBuffer(bytes, 0, length);
    assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
        .isInstanceOfSatisfying(
            CorruptDataException.class,
            e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
  }

  @Property
  void arbitraryBytesNeverEscapeAsAnotherException(@ForAll @Size(max = 80) byte[] bytes) {
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    try {
      RecordBatchCodec.decode(buf).release();
    } catch (CorruptDataException expected) {
      assertThat(buf.readerIndex()).isZero();
    }
  }
}
