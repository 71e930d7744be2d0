package io.picomq.sql.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowCodecTest {

  /** A row made up from {@code seed}: 1 to 40 commands of 0 to 64 random bytes. */
  private static LogRow row(long seed) {
    Random random = new Random(seed);
    List<byte[]> commands = new ArrayList<>();
    int count = 1 + random.nextInt(40);
    for (int i = 0; i < count; i++) {
      byte[] command = new byte[random.nextInt(65)];
      random.nextBytes(command);
      commands.add(command);
    }
    return new LogRow(random.nextLong(), random.nextLong(), commands);
  }

  /** Decodes a row; a refusal fails the example (QuickTheories' lambdas cannot throw it). */
  private static LogRow decoded(byte[] payload) {
    try {
      return RowCodec.decode(payload);
    } catch (LogDecodeException e) {
      throw new AssertionError("refused a well-formed row: " + e.getMessage(), e);
    }
  }

  @Test
  void decodingInvertsEncoding() {
    qt().withExamples(300)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              LogRow row = row(seed);
              LogRow decoded = decoded(RowCodec.encode(row));
              assertThat(decoded.writerId()).isEqualTo(row.writerId());
              assertThat(decoded.batchSequence()).isEqualTo(row.batchSequence());
              assertThat(decoded.commands())
                  .usingElementComparator(Arrays::compare)
                  .isEqualTo(row.commands());
            });
  }

  @Test
  void anyChangedByteIsRejected() {
    qt().withExamples(300)
        .forAll(longs().all(), integers().allPositive(), integers().between(1, 255))
        .checkAssert(
            (seed, position, flip) -> {
              byte[] payload = RowCodec.encode(row(seed));
              payload[position % payload.length] ^= (byte) (int) flip;
              assertThatThrownBy(() -> RowCodec.decode(payload))
                  .isInstanceOf(LogDecodeException.class);
            });
  }

  @Test
  void anyTruncationIsRejected() {
    qt().withExamples(300)
        .forAll(longs().all(), integers().allPositive())
        .checkAssert(
            (seed, cut) -> {
              byte[] payload = RowCodec.encode(row(seed));
              byte[] truncated = Arrays.copyOf(payload, cut % payload.length);
              assertThatThrownBy(() -> RowCodec.decode(truncated))
                  .isInstanceOf(LogDecodeException.class);
            });
  }

  @Test
  void theDocumentedExampleEncodesAsDocumented() throws LogDecodeException {
    byte[] payload = RowCodec.encode(new LogRow(7, 1, List.of(new byte[] {0x0A, 0x0B, 0x0C})));
    assertThat(payload).hasSize(30);
    assertThat(HexFormat.of().formatHex(payload, 0, 26))
        .isEqualTo("01" + "0000000000000007" + "0000000000000001" + "0001" + "00000003" + "0a0b0c");
    assertThat(RowCodec.decode(payload).commands()).containsExactly(new byte[] {0x0A, 0x0B, 0x0C});
  }

  @Test
  void anUnknownVersionIsNamed() {
    byte[] payload = RowCodec.encode(new LogRow(1, 1, List.of(new byte[] {1})));
    payload[0] = 2;
    assertThatThrownBy(() -> RowCodec.decode(payload))
        .isInstanceOf(LogDecodeException.class)
        .hasMessage("unknown row format version 2");
  }

  /** {@code body} followed by its correct CRC32C, so only the structure can be refused. */
  private static byte[] sealed(String hexBody) {
    byte[] body = HexFormat.of().parseHex(hexBody);
    return ByteBuffer.allocate(body.length + 4)
        .put(body)
        .putInt(RowCodec.crc(body, body.length))
        .array();
  }

  private static final String WRITER_7_BATCH_1 = "01" + "0000000000000007" + "0000000000000001";

  @Test
  void aWellSealedRowWithABadStructureIsRefusedWithItsReason() {
    assertThatThrownBy(() -> RowCodec.decode(sealed(WRITER_7_BATCH_1 + "0000")))
        .isInstanceOf(LogDecodeException.class)
        .hasMessage("row holds no commands");
    assertThatThrownBy(
            () -> RowCodec.decode(sealed(WRITER_7_BATCH_1 + "0001" + "00000005" + "0a0b0c")))
        .isInstanceOf(LogDecodeException.class)
        .hasMessage("command 0 claims 5 bytes, row has 3");
    assertThatThrownBy(
            () -> RowCodec.decode(sealed(WRITER_7_BATCH_1 + "0001" + "00000003" + "0a0b0c" + "ff")))
        .isInstanceOf(LogDecodeException.class)
        .hasMessage("1 bytes follow the last command");
    assertThatThrownBy(
            () -> RowCodec.decode(sealed(WRITER_7_BATCH_1 + "0002" + "00000003" + "0a0b0c")))
        .as("the second command is missing")
        .isInstanceOf(LogDecodeException.class)
        .hasMessage("row is truncated");
  }

  @Test
  void aRowHoldsOneTo65535Commands() throws LogDecodeException {
    assertThatThrownBy(() -> new LogRow(1, 1, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LogRow(1, 1, Collections.nCopies(65_536, new byte[0])))
        .isInstanceOf(IllegalArgumentException.class);

    LogRow largest = new LogRow(1, 1, Collections.nCopies(65_535, new byte[] {5}));
    assertThat(RowCodec.decode(RowCodec.encode(largest)).commands()).hasSize(65_535);
  }
}
