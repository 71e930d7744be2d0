package io.picomq.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommandSamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RowCodecTest {

  private static List<Command> commands(long seed, int count) {
    Random random = new Random(seed);
    List<Command> commands = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      commands.add(CommandSamples.random(random));
    }
    return commands;
  }

  private static Kind kindOf(byte[] row) {
    try {
      RowCodec.decode(row);
    } catch (MetadataDecodeException e) {
      return e.kind();
    }
    throw new AssertionError("decoded");
  }

  /** A row with a correct checksum over whatever body the test made up. */
  private static byte[] sealed(byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    int value = (int) crc.getValue();
    byte[] row = Arrays.copyOf(body, body.length + 4);
    for (int i = 0; i < 4; i++) {
      row[body.length + i] = (byte) (value >>> (24 - 8 * i));
    }
    return row;
  }

  @Test
  void aRowOfOneCommandIsLaidOutAsDocumented() throws Exception {
    byte[] row = RowCodec.encode(List.of(new Command.CreateStream()));

    // version 1, count 1, length 2, CreateStream (04 01), CRC32C
    assertThat(row).isEqualTo(sealed(new byte[] {1, 0, 1, 0, 0, 0, 2, 4, 1}));
    assertThat(RowCodec.decode(row)).containsExactly(new Command.CreateStream());
  }

  @Test
  void rowsOfUpTo256CommandsRoundTrip() {
    qt().withExamples(200)
        .forAll(longs().all(), integers().between(1, 256))
        .checkAssert(
            (seed, count) -> {
              List<Command> commands = commands(seed, count);

              assertThat(decoded(RowCodec.encode(commands))).isEqualTo(commands);
            });
  }

  /** Decodes a row; a refusal fails the example (QuickTheories' lambdas cannot throw it). */
  private static List<Command> decoded(byte[] row) {
    try {
      return RowCodec.decode(row);
    } catch (MetadataDecodeException e) {
      throw new AssertionError("refused a well-formed row: " + e.getMessage(), e);
    }
  }

  @Test
  void emptyAndOversizedRowsAreNotEncoded() {
    assertThatThrownBy(() -> RowCodec.encode(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RowCodec.encode(commands(1, 257)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anyChangedByteIsCaughtByTheChecksum() {
    qt().withExamples(300)
        .forAll(longs().all(), integers().between(0, 1 << 20), integers().between(1, 255))
        .checkAssert(
            (seed, position, xor) -> {
              byte[] row = RowCodec.encode(commands(seed, 3));
              row[position % row.length] ^= xor.byteValue();

              assertThat(kindOf(row)).isEqualTo(Kind.CHECKSUM_MISMATCH);
            });
  }

  @Test
  void anyTruncationIsRefused() {
    qt().withExamples(100)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              byte[] row = RowCodec.encode(commands(seed, 4));
              for (int length = 0; length < row.length; length++) {
                byte[] prefix = Arrays.copyOf(row, length);
                assertThatThrownBy(() -> RowCodec.decode(prefix))
                    .as("prefix of %d bytes", length)
                    .isInstanceOf(MetadataDecodeException.class);
              }
            });
  }

  @Test
  void aWellSealedRowWithABadStructureIsRefused() {
    assertThat(kindOf(sealed(new byte[] {2, 0, 1, 0, 0, 0, 2, 4, 1})))
        .isEqualTo(Kind.UNKNOWN_VERSION);
    assertThat(kindOf(sealed(new byte[] {1, 0, 0}))).isEqualTo(Kind.INVALID_FIELD);
    assertThat(kindOf(sealed(new byte[] {1, 0, 2, 0, 0, 0, 2, 4, 1})))
        .as("the second command is missing")
        .isEqualTo(Kind.TRUNCATED);
    assertThat(kindOf(sealed(new byte[] {1, 0, 1, 0, 0, 0, 2, 4, 1, 7})))
        .isEqualTo(Kind.TRAILING_BYTES);
    assertThat(kindOf(sealed(new byte[] {1, 0, 1, 0, 0, 0, 2, 4, 9})))
        .as("a command inside the row is refused with its own reason")
        .isEqualTo(Kind.UNKNOWN_VERSION);
  }
}
