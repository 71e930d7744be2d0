package io.picomq.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommandSamples;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The command encoding round-trips every well-formed command, and never yields a command from an
 * incomplete or over-long encoding. Commands come from {@link CommandSamples} seeded by
 * QuickTheories, so a failure names the seed that rebuilds it; the whole run replays as {@link
 * io.picomq.meta.DeterminismPropertyTest} describes.
 */
class CommandCodecPropertyTest {

  @Test
  void everyCommandRoundTrips() {
    qt().withExamples(2000)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              Command command = CommandSamples.random(new Random(seed));

              assertThat(decoded(CommandCodec.encode(command))).isEqualTo(command);
            });
  }

  @Test
  void everyTruncationIsADecodeError() {
    qt().withExamples(300)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              byte[] encoded = CommandCodec.encode(CommandSamples.random(new Random(seed)));
              for (int length = 0; length < encoded.length; length++) {
                byte[] prefix = Arrays.copyOf(encoded, length);
                assertThatThrownBy(() -> CommandCodec.decode(prefix))
                    .as("prefix of %d of %d bytes", length, encoded.length)
                    .isInstanceOf(MetadataDecodeException.class);
              }
            });
  }

  @Test
  void trailingBytesAreADecodeError() {
    qt().withExamples(300)
        .forAll(longs().all(), integers().between(1, 16))
        .checkAssert(
            (seed, extra) -> {
              byte[] encoded = CommandCodec.encode(CommandSamples.random(new Random(seed)));
              byte[] longer = Arrays.copyOf(encoded, encoded.length + extra);

              assertThatThrownBy(() -> CommandCodec.decode(longer))
                  .isInstanceOfSatisfying(
                      MetadataDecodeException.class,
                      e -> assertThat(e.kind()).isEqualTo(Kind.TRAILING_BYTES));
            });
  }

  @Test
  void aChangedByteIsRefusedOrDecodesToAnotherWellFormedCommand() {
    qt().withExamples(1000)
        .forAll(longs().all(), integers().between(0, 1 << 20), integers().between(1, 255))
        .checkAssert(
            (seed, position, xor) -> {
              Command command = CommandSamples.random(new Random(seed));
              byte[] damaged = CommandCodec.encode(command);
              damaged[position % damaged.length] ^= xor.byteValue();
              try {
                // A command has no checksum (the row has one); the promise here is
                // all-or-nothing.
                assertThat(CommandCodec.decode(damaged)).isNotEqualTo(command);
              } catch (MetadataDecodeException refused) {
                assertThat(refused.kind()).isNotNull();
              }
            });
  }

  /** Decodes a command; a refusal fails the example (QuickTheories' lambdas cannot throw it). */
  private static Command decoded(byte[] bytes) {
    try {
      return CommandCodec.decode(bytes);
    } catch (MetadataDecodeException e) {
      throw new AssertionError("refused a well-formed encoding: " + e.getMessage(), e);
    }
  }
}
