package io.picomq.protocol;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.protocol.DecodeException.Problem;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The record envelope: the worked example of the README, round trips, and damaged input. Random
 * envelopes are rebuilt from a QuickTheories seed, which a failure reports.
 */
class EnvelopeTest {

  /** The README's example: timestamp 1, header {@code a: b}, body {@code hi}. */
  private static final byte[] EXAMPLE =
      Samples.hex("01 0000000000000001 00000001 00000001 61 00000001 62 6869");

  @Test
  void theReadmeExampleDecodesAndEncodes() throws DecodeException {
    Envelope example = Envelope.of(1, Map.of("a", "b"), "hi".getBytes(UTF_8));

    assertThat(example.encode()).isEqualTo(EXAMPLE);
    assertThat(Envelope.decode(EXAMPLE)).isEqualTo(example);
  }

  @Test
  void headersAreWrittenInNameOrderWhateverTheMapsOrder() {
    byte[] encoded = Envelope.of(0, Map.of("b", "2", "a", "1"), new byte[0]).encode();

    assertThat(encoded)
        .isEqualTo(
            Samples.hex(
                "01 0000000000000000 00000002 00000001 61 00000001 31"
                    + " 00000001 62 00000001 32"));
  }

  @Test
  void everyEnvelopeRoundTrips() {
    qt().withExamples(2000)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              Envelope envelope = Samples.envelope(new Random(seed));

              assertThat(decoded(envelope.encode())).isEqualTo(envelope);
            });
  }

  @Test
  void cuttingIntoTheHeadersIsTruncatedAndCuttingTheBodyShortensIt() {
    qt().withExamples(300)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              Envelope envelope = Samples.envelope(new Random(seed));
              byte[] encoded = envelope.encode();
              int bodyStart = encoded.length - envelope.body().length;
              for (int length = 0; length < bodyStart; length++) {
                byte[] prefix = Arrays.copyOf(encoded, length);
                assertThatThrownBy(() -> Envelope.decode(prefix))
                    .as("prefix of %d bytes", length)
                    .isInstanceOfSatisfying(
                        DecodeException.class,
                        e -> assertThat(e.problem()).isEqualTo(Problem.TRUNCATED));
              }
              // The body runs to the end: the container, not the envelope, knows its length.
              byte[] shorter = Arrays.copyOf(encoded, bodyStart + envelope.body().length / 2);
              assertThat(decoded(shorter).body())
                  .isEqualTo(Arrays.copyOf(envelope.body(), envelope.body().length / 2));
            });
  }

  @Test
  void aChangedByteIsRefusedOrDecodesToAWellFormedEnvelope() {
    qt().withExamples(2000)
        .forAll(longs().all(), integers().between(0, 1 << 20), integers().between(1, 255))
        .checkAssert(
            (seed, position, xor) -> {
              byte[] damaged = Samples.envelope(new Random(seed)).encode();
              damaged[position % damaged.length] ^= xor.byteValue();
              try {
                Envelope decoded = Envelope.decode(damaged);
                // What decodes is canonical: it encodes back to the very same bytes.
                assertThat(decoded.encode()).isEqualTo(damaged);
              } catch (DecodeException expected) {
                assertThat(expected.offset()).isBetween(0L, (long) damaged.length);
              }
            });
  }

  @Test
  void anotherVersionIsRefused() {
    byte[] encoded = EXAMPLE.clone();
    encoded[0] = 2;

    assertProblem(encoded, Problem.UNSUPPORTED_VERSION, 0);
  }

  @Test
  void unsortedOrRepeatedOrEmptyHeaderNamesAreRefused() {
    assertProblem(
        Samples.hex("01 0000000000000000 00000002 00000001 62 00000000 00000001 61 00000000"),
        Problem.HEADERS_OUT_OF_ORDER,
        22);
    assertProblem(
        Samples.hex("01 0000000000000000 00000002 00000001 61 00000000 00000001 61 00000000"),
        Problem.HEADERS_OUT_OF_ORDER,
        22);
    assertProblem(
        Samples.hex("01 0000000000000000 00000001 00000000 00000000"),
        Problem.EMPTY_HEADER_NAME,
        13);
  }

  @Test
  void headerTextMustBeUtf8() {
    // C0 AF is an overlong encoding of '/'; ED A0 80 a UTF-16 surrogate written as UTF-8.
    assertProblem(
        Samples.hex("01 0000000000000000 00000001 00000002 C0AF 00000000"),
        Problem.MALFORMED_UTF8,
        13);
    assertProblem(
        Samples.hex("01 0000000000000000 00000001 00000001 61 00000003 EDA080"),
        Problem.MALFORMED_UTF8,
        18);
  }

  @Test
  void aLyingHeaderCountFailsWithoutAllocating() {
    assertProblem(Samples.hex("01 0000000000000000 FFFFFFFF"), Problem.TRUNCATED, 13);
    assertProblem(
        Samples.hex("01 0000000000000000 00000001 FFFFFFFF 61 00000000"), Problem.TRUNCATED, 17);
  }

  @Test
  void headersThatCannotBeEncodedAreRefusedUpFront() {
    assertThatThrownBy(() -> Envelope.of(0, Map.of("", "x"), new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Envelope.of(0, Map.of("a", "\uD800"), new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Envelope decoded(byte[] bytes) {
    try {
      return Envelope.decode(bytes);
    } catch (DecodeException e) {
      throw new AssertionError(e);
    }
  }

  private static void assertProblem(byte[] bytes, Problem problem, long offset) {
    assertThatThrownBy(() -> Envelope.decode(bytes))
        .isInstanceOfSatisfying(
            DecodeException.class,
            e -> {
              assertThat(e.problem()).isEqualTo(problem);
              assertThat(e.offset()).isEqualTo(offset);
            });
  }
}
