package io.picomq.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.state.KvValue;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandCodecTest {

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex.replace(" ", ""));
  }

  private static Kind kindOf(byte[] bytes) {
    try {
      CommandCodec.decode(bytes);
    } catch (MetadataDecodeException e) {
      return e.kind();
    }
    throw new AssertionError("decoded " + HexFormat.of().formatHex(bytes));
  }

  @Test
  void openStreamIsLaidOutAsDocumented() {
    // type 6, version 1, streamId i64 7, nodeId i32 2, nodeEpoch i64 1000
    byte[] expected = hex("06 01 0000000000000007 00000002 00000000000003E8");

    assertThat(CommandCodec.encode(new Command.OpenStream(7, 2, 1_000))).isEqualTo(expected);
  }

  @Test
  void kvPutIsLaidOutAsDocumented() {
    // type 15, version 1, key: u16 length 2 + "k1", value: i32 length 3 + bytes
    byte[] expected = hex("0F 01 0002 6B31 00000003 010203");

    assertThat(CommandCodec.encode(new Command.KvPut("k1", KvValue.of(new byte[] {1, 2, 3}))))
        .isEqualTo(expected);
  }

  @Test
  void aCommandWithoutFieldsIsJustItsHeader() throws Exception {
    assertThat(CommandCodec.encode(new Command.CreateStream())).isEqualTo(hex("04 01"));
    assertThat(CommandCodec.decode(hex("04 01"))).isEqualTo(new Command.CreateStream());
  }

  /** A close without an expected end keeps the bytes it always had; one with it is type 22. */
  @Test
  void aCloseWithAnExpectedEndIsATypeOfItsOwn() throws Exception {
    byte[] plain = CommandCodec.encode(new Command.CloseStream(5, 2, 1, 100));
    assertThat(plain)
        .isEqualTo(hex("08 01 0000000000000005 0000000000000002 00000001 0000000000000064"));
    Command at = new Command.CloseStream(5, 2, 1, 100, 42);
    assertThat(CommandCodec.encode(at))
        .isEqualTo(
            hex(
                "16 01 0000000000000005 0000000000000002 00000001 0000000000000064"
                    + " 000000000000002A"));
    assertThat(CommandCodec.decode(CommandCodec.encode(at))).isEqualTo(at);
  }

  @Test
  void unknownTypesAndVersionsAreRefused() {
    assertThat(kindOf(hex("00 01"))).isEqualTo(Kind.UNKNOWN_TYPE);
    assertThat(kindOf(hex("17 01"))).isEqualTo(Kind.UNKNOWN_TYPE);
    assertThat(kindOf(hex("FF"))).isEqualTo(Kind.UNKNOWN_TYPE);
    assertThat(kindOf(hex("04 02"))).isEqualTo(Kind.UNKNOWN_VERSION);
    assertThat(kindOf(hex("04 00"))).isEqualTo(Kind.UNKNOWN_VERSION);
  }

  @Test
  void emptyTruncatedAndTrailingBytesAreRefused() {
    assertThat(kindOf(new byte[0])).isEqualTo(Kind.TRUNCATED);
    assertThat(kindOf(hex("06 01 0000000000000007 00000002 00000000000003")))
        .isEqualTo(Kind.TRUNCATED);
    assertThat(kindOf(hex("04 01 00"))).isEqualTo(Kind.TRAILING_BYTES);
  }

  @Test
  void fieldsTheCommandDoesNotAllowAreInvalid() {
    // OpenStream with stream id -1
    assertThat(kindOf(hex("06 01 FFFFFFFFFFFFFFFF 00000002 00000000000003E8")))
        .isEqualTo(Kind.INVALID_FIELD);
    // KvDelete whose key is a lone UTF-8 continuation byte
    assertThat(kindOf(hex("11 01 0001 80"))).isEqualTo(Kind.INVALID_FIELD);
    // CreateStreams of 0
    assertThat(kindOf(hex("05 01 00000000"))).isEqualTo(Kind.INVALID_FIELD);
    // CleanDestroyedObjects with a negative count
    assertThat(kindOf(hex("0E 01 FFFFFFFF"))).isEqualTo(Kind.INVALID_FIELD);
  }

  @Test
  void aHugeCountIsRefusedBeforeAnythingIsAllocated() {
    // CleanDestroyedObjects claiming 2^31-1 ids in 0 bytes
    assertThat(kindOf(hex("0E 01 7FFFFFFF"))).isEqualTo(Kind.TRUNCATED);
    // KvPut whose value claims 2 GiB
    assertThat(kindOf(hex("0F 01 0001 6B 7FFFFFFF"))).isEqualTo(Kind.TRUNCATED);
  }

  @Test
  void aDecodedCommitEqualsTheEncodedOne() throws Exception {
    Command commit =
        new Command.CommitStreamSetObject(
            4,
            1,
            100,
            4096,
            List.of(new CommittedRange(0, 2, 10, 20), new CommittedRange(3, 0, 0, 5)),
            List.of(),
            List.of(1L, 2L));

    assertThat(CommandCodec.decode(CommandCodec.encode(commit))).isEqualTo(commit);
  }

  @Test
  void stringsThatUtf8CannotCarryAreRefusedWhenTheCommandIsBuilt() {
    assertThatThrownBy(() -> new Command.RegisterNode(1, 1, "host\uDC00", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
