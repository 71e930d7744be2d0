package io.picomq.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommandSamples;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The command encoding round-trips every well-formed command, and never yields a command from an
 * incomplete or over-long encoding. Commands come from {@link CommandSamples} seeded by jqwik, so a
 * failure names the seed that rebuilds it.
 */
class CommandCodecPropertyTest {

  @Property(tries = 2000)
  void everyCommandRoundTrips(@ForAll long seed) throws Exception {
    Command command = CommandSamples.random(new Random(seed));

    assertThat(CommandCodec.decode(CommandCodec.encode(command))).isEqualTo(command);
  }

  @Property(tries = 300)
  void everyTruncationIsADecodeError(@ForAll long seed) {
    byte[] encoded = CommandCodec.encode(CommandSamples.random(new Random(seed)));
    for (int length = 0; length < encoded.length; length++) {
      byte[] prefix = Arrays.copyOf(encoded, length);
      assertThatThrownBy(() -> CommandCodec.decode(prefix))
          .as("prefix of %d of %d bytes", length, encoded.length)
          .isInstanceOf(MetadataDecodeException.class);
    }
  }

  @Property(tries = 300)
  void trailingBytesAreADecodeError(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 16) int extra) {
    byte[] encoded = CommandCodec.encode(CommandSamples.random(new Random(seed)));
    byte[] longer = Arrays.copyOf(encoded, encoded.length + extra);

    assertThatThrownBy(() -> CommandCodec.decode(longer))
        .isInstanceOfSatisfying(
            MetadataDecodeException.class,
            e -> assertThat(e.kind()).isEqualTo(Kind.TRAILING_BYTES));
  }

  @Property(tries = 1000)
  void aChangedByteIsRefusedOrDecodesToAnotherWellFormedCommand(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 1 << 20) int position,
      @ForAll @IntRange(min = 1, max = 255) int xor) {
    Command command = CommandSamples.random(new Random(seed));
    byte[] damaged = CommandCodec.encode(command);
    damaged[position % damaged.length] ^= (byte) xor;
    try {
      // A command has no checksum (the row has one); the promise here is all-or-nothing.
      assertThat(CommandCodec.decode(damaged)).isNotEqualTo(command);
    } catch (MetadataDecodeException refused) {
      assertThat(refused.kind()).isNotNull();
    }
  }
}
