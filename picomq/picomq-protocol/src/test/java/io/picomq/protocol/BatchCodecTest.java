package io.picomq.protocol;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.protocol.DecodeException.Problem;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The binary batches for append and read: the README's worked examples, round trips, and damaged
 * input. Random batches are rebuilt from a QuickTheories seed, which a failure reports.
 */
class BatchCodecTest {

  /** Two records: {@code {a: b}} with body {@code hi}, then no headers and an empty body. */
  private static final byte[] APPEND_EXAMPLE =
      Samples.hex("01 00000002 00000001 00000001 61 00000001 62 00000002 6869 00000000 00000000");

  /** One record at seq 7, timestamp 1000, header {@code k: v}, body {@code x}. */
  private static final byte[] READ_EXAMPLE =
      Samples.hex(
          "01 00000001 0000000000000007 00000000000003E8 00000001 00000001 6B 00000001 76"
              + " 00000001 78");

  @Test
  void theReadmeExamplesDecodeAndEncode() throws DecodeException {
    List<AppendBatch.Entry> append =
        List.of(
            AppendBatch.Entry.of(Map.of("a", "b"), "hi".getBytes(UTF_8)),
            AppendBatch.Entry.of(Map.of(), new byte[0]));
    List<ReadBatch.Entry> read =
        List.of(ReadBatch.Entry.of(7, 1000, Map.of("k", "v"), "x".getBytes(UTF_8)));

    assertThat(AppendBatch.encode(append)).isEqualTo(APPEND_EXAMPLE);
    assertThat(AppendBatch.decode(APPEND_EXAMPLE)).isEqualTo(append);
    assertThat(ReadBatch.encode(read)).isEqualTo(READ_EXAMPLE);
    assertThat(ReadBatch.decode(READ_EXAMPLE)).isEqualTo(read);
  }

  @Test
  void anEmptyBatchIsFiveBytes() throws DecodeException {
    assertThat(AppendBatch.encode(List.of())).isEqualTo(Samples.hex("01 00000000"));
    assertThat(ReadBatch.decode(Samples.hex("01 00000000"))).isEmpty();
  }

  @Test
  void everyBatchRoundTrips() {
    qt().withExamples(1000)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              List<AppendBatch.Entry> append = Samples.appendBatch(new Random(seed));
              List<ReadBatch.Entry> read = Samples.readBatch(new Random(seed));

              assertThat(decodeAppend(AppendBatch.encode(append))).isEqualTo(append);
              assertThat(decodeRead(ReadBatch.encode(read))).isEqualTo(read);
            });
  }

  @Test
  void everyTruncationIsRefused() {
    qt().withExamples(200)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              byte[] append = AppendBatch.encode(Samples.appendBatch(new Random(seed)));
              byte[] read = ReadBatch.encode(Samples.readBatch(new Random(seed)));
              for (int length = 0; length < append.length; length++) {
                byte[] prefix = Arrays.copyOf(append, length);
                assertProblem(() -> AppendBatch.decode(prefix), Problem.TRUNCATED);
              }
              for (int length = 0; length < read.length; length++) {
                byte[] prefix = Arrays.copyOf(read, length);
                assertProblem(() -> ReadBatch.decode(prefix), Problem.TRUNCATED);
              }
            });
  }

  @Test
  void trailingBytesAreRefused() {
    qt().withExamples(300)
        .forAll(longs().all(), integers().between(1, 64))
        .checkAssert(
            (seed, extra) -> {
              byte[] append = AppendBatch.encode(Samples.appendBatch(new Random(seed)));
              byte[] read = ReadBatch.encode(Samples.readBatch(new Random(seed)));
              byte[] longerAppend = Arrays.copyOf(append, append.length + extra);
              byte[] longerRead = Arrays.copyOf(read, read.length + extra);

              assertProblem(() -> AppendBatch.decode(longerAppend), Problem.TRAILING_BYTES);
              assertProblem(() -> ReadBatch.decode(longerRead), Problem.TRAILING_BYTES);
            });
  }

  @Test
  void aChangedByteIsRefusedOrDecodesToAWellFormedBatch() {
    qt().withExamples(2000)
        .forAll(longs().all(), integers().between(0, 1 << 20), integers().between(1, 255))
        .checkAssert(
            (seed, position, xor) -> {
              byte[] append = AppendBatch.encode(Samples.appendBatch(new Random(seed)));
              byte[] read = ReadBatch.encode(Samples.readBatch(new Random(seed)));
              append[position % append.length] ^= xor.byteValue();
              read[position % read.length] ^= xor.byteValue();
              try {
                assertThat(AppendBatch.encode(AppendBatch.decode(append))).isEqualTo(append);
              } catch (DecodeException expected) {
                assertThat(expected.offset()).isBetween(0L, (long) append.length);
              }
              try {
                assertThat(ReadBatch.encode(ReadBatch.decode(read))).isEqualTo(read);
              } catch (DecodeException expected) {
                assertThat(expected.offset()).isBetween(0L, (long) read.length);
              }
            });
  }

  @Test
  void aLyingCountOrLengthIsTruncated() {
    assertProblem(() -> AppendBatch.decode(Samples.hex("01 FFFFFFFF")), Problem.TRUNCATED);
    assertProblem(
        () -> AppendBatch.decode(Samples.hex("01 00000001 00000000 7FFFFFFF 00")),
        Problem.TRUNCATED);
    assertProblem(
        () -> ReadBatch.decode(Samples.hex("01 FFFFFFFF 0000000000000000")), Problem.TRUNCATED);
  }

  @Test
  void aSeqBeyondTheSignedRangeIsRefused() {
    byte[] read = READ_EXAMPLE.clone();
    read[5] = (byte) 0x80;

    assertProblem(() -> ReadBatch.decode(read), Problem.SEQ_OUT_OF_RANGE);
    assertThatThrownBy(() -> ReadBatch.Entry.of(-1, 0, Map.of(), new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anotherVersionIsRefused() {
    byte[] append = APPEND_EXAMPLE.clone();
    append[0] = 0;
    byte[] read = READ_EXAMPLE.clone();
    read[0] = 2;

    assertProblem(() -> AppendBatch.decode(append), Problem.UNSUPPORTED_VERSION);
    assertProblem(() -> ReadBatch.decode(read), Problem.UNSUPPORTED_VERSION);
  }

  private interface Decoding {
    Object decode() throws DecodeException;
  }

  private static void assertProblem(Decoding decoding, Problem problem) {
    assertThatThrownBy(decoding::decode)
        .isInstanceOfSatisfying(
            DecodeException.class, e -> assertThat(e.problem()).isEqualTo(problem));
  }

  private static List<AppendBatch.Entry> decodeAppend(byte[] bytes) {
    try {
      return AppendBatch.decode(bytes);
    } catch (DecodeException e) {
      throw new AssertionError(e);
    }
  }

  private static List<ReadBatch.Entry> decodeRead(byte[] bytes) {
    try {
      return ReadBatch.decode(bytes);
    } catch (DecodeException e) {
      throw new AssertionError(e);
    }
  }
}
