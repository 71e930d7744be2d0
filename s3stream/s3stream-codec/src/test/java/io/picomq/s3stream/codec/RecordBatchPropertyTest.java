package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * What the record batch format alone guarantees. It has no checksum, so the promise under damage is
 * weaker than the WAL framing's: a changed byte is either rejected or decodes to a batch that is
 * not equal to the original (the encoding is injective), and nothing but {@link
 * CorruptDataException} ever escapes the decoder. Detection of every damaged byte is the WAL
 * record's job ({@link WalRecordPropertyTest}).
 *
 * <p>Reproducing a failure: QuickTheories draws a fresh seed for every property, shrinks a failing
 * example, and ends its report with {@code Seed was N}. Passing that seed back as the system
 * property {@code QT_SEED} replays the same examples exactly, e.g. {@code mvn -pl
 * s3stream/s3stream-codec test -Dtest='RecordBatchPropertyTest#roundTrips' -DQT_SEED=N}. The same
 * holds for every property test in this module.
 */
class RecordBatchPropertyTest {

  /** Any header values, and payloads from empty to 2 KiB. */
  static Gen<RecordBatch> batches() {
    return longs()
        .all()
        .zip(
            longs().all(),
            longs().all(),
            integers().all(),
            bytes(2048),
            (streamId, epoch, base, count, payload) ->
                new RecordBatch(streamId, epoch, base, count, Unpooled.wrappedBuffer(payload)))
        .describedAs(
            b ->
                "RecordBatch[streamId="
                    + b.streamId()
                    + ", epoch="
                    + b.epoch()
                    + ", baseOffset="
                    + b.baseOffset()
                    + ", count="
                    + b.count()
                    + ", payload="
                    + ByteBufUtil.hexDump(b.payload())
                    + "]");
  }

  /** Byte arrays of any content, from empty to {@code maxLength} bytes. */
  static Gen<byte[]> bytes(int maxLength) {
    return Generate.byteArrays(
            integers().between(0, maxLength),
            Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0))
        .describedAs(Arrays::toString);
  }

  private static byte[] encode(RecordBatch batch) {
    ByteBuf encoded = RecordBatchCodec.encode(batch, Unpooled.buffer().alloc());
    byte[] bytes = new byte[encoded.readableBytes()];
    encoded.readBytes(bytes);
    encoded.release();
    return bytes;
  }

  @Test
  void roundTrips() {
    qt().withExamples(1000)
        .forAll(batches())
        .checkAssert(
            batch -> {
              byte[] bytes = encode(batch);
              ByteBuf buf = Unpooled.wrappedBuffer(bytes);
              RecordBatch decoded = RecordBatchCodec.decode(buf);
              assertThat(decoded).isEqualTo(batch);
              assertThat(decoded.lastOffset()).isEqualTo(batch.lastOffset());
              assertThat(buf.isReadable()).isFalse();
              assertThat(
                      RecordBatchCodec.readHeader(Unpooled.wrappedBuffer(bytes), 0).encodedSize())
                  .isEqualTo(bytes.length);
              decoded.release();
            });
  }

  @Test
  void aChangedByteIsRejectedOrDecodesToADifferentBatch() {
    qt().withExamples(1000)
        .forAll(batches(), integers().between(0, Integer.MAX_VALUE), integers().between(1, 255))
        .checkAssert(
            (batch, position, xor) -> {
              byte[] bytes = encode(batch);
              int at = position % bytes.length;
              bytes[at] ^= xor.byteValue();
              try {
                RecordBatch decoded = RecordBatchCodec.decode(Unpooled.wrappedBuffer(bytes));
                assertThat(decoded).isNotEqualTo(batch);
              } catch (CorruptDataException rejected) {
                // The magic byte, and a payload length pushed past the end or below zero, are
                // caught here.
                assertThat(at == 0 || (at >= 29 && at < 33)).as("rejected byte %d", at).isTrue();
              }
            });
  }

  @Test
  void aChangedMagicIsAlwaysRejected() {
    qt().withExamples(1000)
        .forAll(batches(), integers().between(1, 255))
        .checkAssert(
            (batch, xor) -> {
              byte[] bytes = encode(batch);
              bytes[0] ^= xor.byteValue();
              ByteBuf buf = Unpooled.wrappedBuffer(bytes);
              assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
                  .isInstanceOfSatisfying(
                      CorruptDataException.class,
                      e ->
                          assertThat(e.reason())
                              .isEqualTo(CorruptDataException.Reason.UNKNOWN_MAGIC));
            });
  }

  @Test
  void anyTruncationIsRejected() {
    qt().withExamples(1000)
        .forAll(batches(), integers().between(0, Integer.MAX_VALUE))
        .checkAssert(
            (batch, cut) -> {
              byte[] bytes = encode(batch);
              int length = cut % bytes.length;
              ByteBuf buf = Unpooled.wrappedBuffer(bytes, 0, length);
              assertThatThrownBy(() -> RecordBatchCodec.decode(buf))
                  .isInstanceOfSatisfying(
                      CorruptDataException.class,
                      e -> assertThat(e.reason()).isEqualTo(CorruptDataException.Reason.TRUNCATED));
            });
  }

  @Test
  void arbitraryBytesNeverEscapeAsAnotherException() {
    qt().withExamples(1000)
        .forAll(bytes(80))
        .checkAssert(
            bytes -> {
              ByteBuf buf = Unpooled.wrappedBuffer(bytes);
              try {
                RecordBatchCodec.decode(buf).release();
              } catch (CorruptDataException expected) {
                assertThat(buf.readerIndex()).isZero();
              }
            });
  }
}
